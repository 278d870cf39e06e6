import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app';
import { loadSettings } from './settings';

/**
 * `make k8s`: synthesises k8s/dist/ from k8s/platform.json. Another settings file and output folder
 * can be given (node k8s/build/main.js <settings.json> <outdir>), e.g. for a cluster with managed
 * NATS and MongoDB.
 */
const root = path.join(__dirname, '..');
const settingsFile = process.argv[2] ?? path.join(root, 'platform.json');
const outdir = process.argv[3] ?? path.join(root, 'dist');

fs.rmSync(outdir, { recursive: true, force: true });
buildApp(loadSettings(settingsFile), outdir).synth();
process.stdout.write(`synthesised ${settingsFile} into ${outdir}\n`);
