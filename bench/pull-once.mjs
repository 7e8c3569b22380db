#!/usr/bin/env node
// One pull through the library, as `changelog-sync pull` makes it (the service reads sent
// first, then the pull's modules loaded), with the conversion threads' prewarm on or off:
// the CLI has no switch for it. Run by the `prewarm` scenario under /usr/bin/time.
//
//   node bench/pull-once.mjs <content dir> <state dir> <on|off>
// with CHANGELOG_BASE_URL and CHANGELOG_TOKEN set. Prints the pull's result as JSON.
import { ChangelogClient } from '../dist/api/client.js';
import { startServiceReads } from '../dist/mirror/service-reads.js';

const [contentDir, stateDir, prewarm] = process.argv.slice(2);
if (!contentDir || !stateDir || (prewarm !== 'on' && prewarm !== 'off')) throw new Error('usage: pull-once.mjs <content dir> <state dir> <on|off>');
const client = new ChangelogClient({ baseUrl: process.env.CHANGELOG_BASE_URL, token: process.env.CHANGELOG_TOKEN });
try {
  const reads = startServiceReads(client);
  const { pull } = await import('../dist/mirror/pull.js');
  const result = await pull({ client, reads, contentDir, stateDir, render: { prewarm: prewarm === 'on' } });
  console.log(JSON.stringify(result));
} finally {
  await client.close();
}
