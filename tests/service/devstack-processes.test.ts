import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForHttp } from '@pix/devstack';

describe('freePort', () => {
  it('hands out distinct ports below the kernel ephemeral range, where no outgoing connection can take them', async () => {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(low);
  });
});

describe('waitForHttp', () => {
  it("quotes the end of the process's log when the process died before becoming ready", async () => {
    const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-')), 'svc.log');
    fs.writeFileSync(logFile, 'starting\nError: listen EADDRINUSE: address already in use 127.0.0.1:1234\n');
    await expect(waitForHttp('http://127.0.0.1:1/readyz', 1_000, 'svc', () => false, logFile)).rejects.toThrow(
      /svc exited before becoming ready; the end of .*svc\.log:\nstarting\nError: listen EADDRINUSE/,
    );
  });
});
