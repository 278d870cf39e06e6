import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/**
 * `node k8s/build/validate.js [file.yaml|dir ...]` checks every object against the Kubernetes
 * OpenAPI schema (kubernetes-models, generated from the Kubernetes OpenAPI document, compiled ajv
 * validators), the Prometheus Operator CRD schemas (@kubernetes-models/prometheus-operator) and
 * cert-manager's (@kubernetes-models/cert-manager).
 * Exits non-zero and lists each problem when any object is invalid or of an unknown kind.
 */
interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
}

interface Model {
  validate(): void;
}

/** The models are ES modules, one per kind, under the group/version path of the apiVersion. */
async function modelFor(apiVersion: string, kind: string): Promise<(new (data: unknown) => Model) | undefined> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const crds: Record<string, string> = {
    'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
    'cert-manager.io': '@kubernetes-models/cert-manager',
  };
  const specifier =
    group && crds[group]
      ? `${crds[group]}/${group}/${version}/${kind}`
      : `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
  try {
    const mod = (await import(specifier)) as Record<string, new (data: unknown) => Model>;
    return mod[kind];
  } catch {
    return undefined;
  }
}

function yamlFiles(targets: string[]): string[] {
  return targets.flatMap((target) =>
    fs.statSync(target).isDirectory()
      ? fs
          .readdirSync(target)
          .filter((name) => name.endsWith('.yaml'))
          .sort()
          .map((name) => path.join(target, name))
      : [target],
  );
}

async function main(): Promise<void> {
  const targets = process.argv.slice(2);
  const files = yamlFiles(targets.length > 0 ? targets : [path.join(__dirname, '..', 'dist')]);
  const problems: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
      const manifest = doc.toJS() as Manifest | null;
      if (!manifest) continue;
      const where = `${path.basename(file)}: ${manifest.kind}/${manifest.metadata?.name}`;
      const Model =
        manifest.apiVersion && manifest.kind ? await modelFor(manifest.apiVersion, manifest.kind) : undefined;
      if (!Model) {
        problems.push(`${where}: no schema for ${manifest.apiVersion} ${manifest.kind}`);
        continue;
      }
      try {
        new Model(manifest).validate();
        checked += 1;
      } catch (err) {
        problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`${checked} objects valid in ${files.length} files\n`);
}

void main();
