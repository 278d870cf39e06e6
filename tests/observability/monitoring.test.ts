import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@pix/devstack';

const run = promisify(execFile);
const MONITORING = path.join(ROOT, 'k8s', 'monitoring');
const RULES = path.join(MONITORING, 'prometheus-rules.yaml');

interface Dashboard {
  uid: string;
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(fs.readFileSync(path.join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as Dashboard;
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

function alertNames(): string[] {
  return [...fs.readFileSync(RULES, 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1] ?? '');
}

/** The alert rules and the dashboard, checked by Prometheus' own tool. */
describe('dashboards and alerts', () => {
  it('has alert rules promtool accepts', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', RULES]);
    expect(stdout).toContain('SUCCESS');
  });

  it('fires the alerts on the series they are about (promtool test rules)', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', 'prometheus-rules.test.yaml'], { cwd: MONITORING });
    expect(stdout).toContain('SUCCESS');
  });

  it('alerts on error rate, latency, webhook dead letters, consumer lag, outbox backlog and PSP failures', () => {
    const rules = fs.readFileSync(RULES, 'utf8');
    for (const metric of [
      'http_requests_total{status_code=~"5.."}',
      'http_request_duration_seconds_bucket',
      'webhook_dead_letters_total',
      'jetstream_consumer_pending',
      'outbox_pending_events',
      'psp_charge_failures_total',
    ]) {
      expect(rules).toContain(metric);
    }
  });

  it('has a runbook entry in docs/operations.md for every alert', () => {
    const operations = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const runbook = operations.slice(operations.indexOf('## Alerts'), operations.indexOf('## Admin CLI'));
    expect(alertNames().length).toBeGreaterThanOrEqual(6);
    for (const alert of alertNames()) expect(runbook).toContain(`\`${alert}\``);
  });

  it('has a dashboard whose every query is valid PromQL', async () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(20);
    // Grafana's variables, as Grafana would substitute them, then each query as a recording rule.
    const rules = expressions.map((expr, i) => ({
      record: `dashboard:query_${i}`,
      expr: expr.replaceAll('$__rate_interval', '5m').replaceAll('$service', '.*'),
    }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-'));
    try {
      const file = path.join(dir, 'queries.json');
      // JSON is YAML: promtool reads it as a rule file.
      fs.writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { stdout } = await run('promtool', ['check', 'rules', file]);
      expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
