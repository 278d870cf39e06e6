import fs from 'node:fs';
import path from 'node:path';
import { ApiObject, type Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import YAML from 'yaml';
import type { IPodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor' with {
  'resolution-mode': 'import',
};
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule' with {
  'resolution-mode': 'import',
};
import { labelsOf } from './services';
import type { Settings } from './settings';

/** The observability issue's files, packaged as they are. */
export const MONITORING_DIR = path.join(__dirname, '..', 'monitoring');

/**
 * The Grafana dashboard as a ConfigMap (the Grafana sidecar loads those labelled grafana_dashboard);
 * the alert rules as a PrometheusRule with a PodMonitor scraping every service's ops port when the
 * cluster runs the Prometheus Operator, otherwise as a ConfigMap holding the plain rule file.
 */
export function addMonitoring(chart: Chart, settings: Settings): void {
  const dashboard = fs.readFileSync(path.join(MONITORING_DIR, 'grafana-dashboard.json'), 'utf8');
  const rulesText = fs.readFileSync(path.join(MONITORING_DIR, 'prometheus-rules.yaml'), 'utf8');
  new k8s.KubeConfigMap(chart, 'dashboard', {
    metadata: { name: 'pix-grafana-dashboard', labels: { ...labelsOf('pix'), grafana_dashboard: '1' } },
    data: { 'pix-platform.json': dashboard },
  });
  if (!settings.monitoring.prometheusOperator) {
    new k8s.KubeConfigMap(chart, 'rules', {
      metadata: { name: 'pix-prometheus-rules', labels: labelsOf('pix') },
      data: { 'pix-rules.yaml': rulesText },
    });
    return;
  }
  // Typed by the Prometheus Operator's CRD models, so a misspelt field does not compile.
  const rule: IPrometheusRule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'pix', labels: labelsOf('pix') },
    spec: YAML.parse(rulesText) as IPrometheusRule['spec'],
  };
  const podMonitor: IPodMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: { name: 'pix', labels: labelsOf('pix') },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/part-of': 'pix' } },
      podMetricsEndpoints: [{ port: 'ops', path: '/metrics', interval: '15s' }],
    },
  };
  new ApiObject(chart, 'rules', rule);
  new ApiObject(chart, 'pod-monitor', podMonitor);
}
