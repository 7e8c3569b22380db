// The site of the reading suites (test/browser/reading.test.ts, axe.test.ts): a handful of
// entries with fenced code in several languages (and in none, and in one nobody knows), a
// code line far wider than a phone, repeated headings, and tags with their own colours
// (one pair too faint to keep), built once per theme and served on loopback.
import { join } from 'node:path';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { BUILT_IN_THEMES } from '../../../src/site/data/themes.js';
import { writeContent, TAGS, type EntrySpec } from './site-fixture.js';
import { serveStatic, type StaticServer } from '../browser/static-server.js';

/** A URL far wider than a phone, with no place to break but its punctuation. */
export const LONG_URL = 'https://api.box.com/2.0/files/12345678901234567890/metadata/enterprise_12345/someVeryLongTemplateKeyWithoutAnySpaces?fields=id,type,name,description,size,path_collection';

/** The entry with code blocks: its slug. */
export const CODE_ENTRY = 'code-samples';

const CODE_BODY = `Calling the API from Node and from the shell.

## Bug Fixes

Fixed a crash in \`client.files.get()\`.

\`\`\`js
// Reads a file's metadata.
const file = await client.files.get('12345', { fields: ['name', 'size'] });
console.log(file.name, 42);
\`\`\`

## Bug Fixes

The same heading again: its anchor differs.

\`\`\`curl
curl -X GET "${LONG_URL}" -H "Authorization: Bearer <ACCESS_TOKEN>"
\`\`\`

### New Features and Enhancements

\`\`\`json
{ "type": "file", "id": "12345", "etag": "1", "shared": true }
\`\`\`

\`\`\`brainfudge
++++[>++++<-]>.
\`\`\`

\`\`\`
plain block without a language
\`\`\`
`;

/** The entries: the code entry newest, then short ones sharing its headings. */
function readingEntries(): EntrySpec[] {
  const others: EntrySpec[] = Array.from({ length: 5 }, (_, i) => ({
    title: `Release ${5 - i}`,
    date: `2025-03-0${5 - i}`,
    tags: i % 2 ? ['Fix'] : ['New', 'Faint'],
    body: `Release notes number ${5 - i}, with search words alpha bravo.\n\n### Bug Fixes\n\n- Fixed the thing number ${5 - i}.\n`,
  }));
  return [{ title: 'Code samples', slug: CODE_ENTRY, date: '2025-03-10', tags: ['New', 'Fix'], body: CODE_BODY }, ...others];
}

/** The tags: the fixture's two, and one whose colours are too close to keep. */
const READING_TAGS = [...TAGS, { name: 'Faint', slug: 'faint', bg_color: '#fef9c3', text_color: '#facc15' }];

/** One built and served site per theme. */
export interface ThemedSites {
  sites: Record<string, StaticServer>;
  close(): Promise<void>;
}

/**
 * Builds the reading site once per built-in theme under `dir` and serves each.
 * @param dir a temporary directory of the test.
 */
export async function buildThemedSites(dir: string): Promise<ThemedSites> {
  const contentDir = await writeContent(join(dir, 'src'), { entries: readingEntries(), tags: READING_TAGS });
  const sites: Record<string, StaticServer> = {};
  for (const theme of BUILT_IN_THEMES) {
    const outputDir = join(dir, `site-${theme}`);
    // The server first: the site's absolute URLs carry its port.
    const server = await serveStatic(outputDir);
    sites[theme] = server;
    await buildSite({ contentDir, siteDir: PACKAGED_SITE_DIR, outputDir, siteUrl: `${server.url}/`, root: dir, theme, today: '2025-06-01' });
  }
  return {
    sites,
    close: async () => {
      for (const s of Object.values(sites)) await s.close();
    },
  };
}
