// The layer rule of src/ (issue 26; docs/architecture.md "Layers"), checked by `npm run layers`
// in .ci/run and by test/repo/layers.test.ts. Arrows only point down:
//
//   cli/ (and src/cli.ts)  ->  options/ (with src/index.ts: the configuration to engine options)
//                          ->  sync/, site/, subscribers/, emulator/  (the engine peers)
//                          ->  entry/, convert/, service/
//                          ->  core/
//
// A layer may import any layer below it, never one above it; the engine peers never import
// each other; entry/ and convert/ take from service/ only the types of its records
// (service/schemas.ts); entry/ and convert/ do not import each other (neither does today).
// src/index.ts (the library) calls the engine, never cli/. Each arrow is one forbidden rule,
// named so that a violation says which arrow it breaks. Paths are relative to the project.
//
// Inside site/, the same (docs/architecture.md "Layers inside site/"):
//
//   dev/ (the preview)  ->  pipeline/  ->  search/  ->  cache/  ->  render/  ->  data/

/** A path under src/ in one of the given top-level folders. */
const under = (...folders) => `^src/(${folders.join('|')})/`;

/** A path under src/site/ in one of the given folders. */
const inSite = (...folders) => `^src/site/(${folders.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'core-imports-nothing-above',
      comment: 'core/ is the bottom layer: it imports nothing from src/ outside core/ (the ambient declarations in types/ aside).',
      severity: 'error',
      from: { path: under('core') },
      to: { path: '^src/', pathNot: [under('core'), under('types')] },
    },
    {
      name: 'service-imports-only-core',
      comment: 'service/ (client, rate budget, schemas) sits beside entry/ and convert/, above core/ only: it imports none of entry/, convert/, the engine peers, cli/ or the entry points.',
      severity: 'error',
      from: { path: under('service') },
      to: { path: [under('entry', 'convert', 'sync', 'site', 'subscribers', 'emulator', 'cli'), '^src/(cli|index)\\.ts$'] },
    },
    {
      name: 'entry-convert-take-only-schemas-from-service',
      comment: 'entry/ and convert/ take from service/ only the types of its records (service/schemas.ts): never the client, the transport or the rate budget.',
      severity: 'error',
      from: { path: under('entry', 'convert') },
      to: { path: under('service'), pathNot: '^src/service/schemas\\.ts$' },
    },
    {
      name: 'entry-convert-import-no-engine',
      comment: 'entry/ (the file format) and convert/ (HTML <-> Markdown) are below the engine peers and cli/: they import none of sync/, site/, subscribers/, emulator/, cli/.',
      severity: 'error',
      from: { path: under('entry', 'convert') },
      to: { path: under('sync', 'site', 'subscribers', 'emulator', 'cli') },
    },
    {
      name: 'convert-imports-no-entry',
      comment: 'convert/ (HTML <-> Markdown) does not import entry/ (the file format): they are siblings on one layer, and neither imports the other today.',
      severity: 'error',
      from: { path: under('convert') },
      to: { path: under('entry') },
    },
    {
      name: 'entry-imports-no-convert',
      comment: 'entry/ does not import convert/: the file format is read and checked without the converters (sync/ and site/ call both). Should the format ever need a converter, this is the arrow to allow (entry -> convert), never the reverse.',
      severity: 'error',
      from: { path: under('entry') },
      to: { path: under('convert') },
    },
    {
      name: 'engine-peers-import-no-peer',
      comment: 'The engine peers (sync/, site/, subscribers/, emulator/) do not import each other: what two of them share belongs in a layer below.',
      severity: 'error',
      from: { path: '^src/(sync|site|subscribers|emulator)/' },
      to: { path: '^src/(sync|site|subscribers|emulator)/', pathNot: '^src/$1/' },
    },
    {
      name: 'nothing-below-cli-imports-cli',
      comment: 'cli/ (commands, reports, output) is the top layer: no module below it imports it (the library entry point has its own rule, library-imports-no-cli).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/cli\\.ts$', '^src/index\\.ts$'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'nothing-below-options-imports-options',
      comment: 'options/ (the mapping from the configuration to the engine options) sits above the engine peers, below cli/ and src/index.ts: nothing of the engine or below imports it.',
      severity: 'error',
      from: { path: under('sync', 'site', 'subscribers', 'emulator', 'entry', 'convert', 'service', 'core') },
      to: { path: under('options') },
    },
    {
      name: 'library-imports-no-cli',
      comment: 'src/index.ts, the library, calls the engine and never cli/ (its commands, reporter or output).',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'nothing-imports-entry-points',
      comment: 'src/cli.ts (the bin) and src/index.ts (the library) are entry points: nothing imports them.',
      severity: 'error',
      from: {},
      to: { path: '^src/(cli|index)\\.ts$' },
    },
    {
      name: 'commands-import-no-command',
      comment: 'A command in cli/commands/ does not import another: what two commands share lives in the engine or in cli/ beside commands/.',
      severity: 'error',
      from: { path: '^src/cli/commands/' },
      to: { path: '^src/cli/commands/' },
    },
    {
      name: 'site-data-imports-no-site-layer-above',
      comment: 'site/data/ (the site model: its shapes, tags, feeds, themes, settings) is the bottom of site/: it imports none of render/, cache/, search/, pipeline/, dev/.',
      severity: 'error',
      from: { path: inSite('data') },
      to: { path: inSite('render', 'cache', 'search', 'pipeline', 'dev') },
    },
    {
      name: 'site-render-imports-only-data',
      comment: 'site/render/ (bodies, images, filters, the site data with its bodies rendered) takes from site/ only data/: none of cache/, search/, pipeline/, dev/ (a cache it uses is handed in, typed by render/).',
      severity: 'error',
      from: { path: inSite('render') },
      to: { path: inSite('cache', 'search', 'pipeline', 'dev') },
    },
    {
      name: 'site-cache-imports-no-pipeline',
      comment: 'site/cache/ (what a build keeps for the next: bodies, pages, images) imports data/ and render/, never search/, pipeline/ or dev/, which run it.',
      severity: 'error',
      from: { path: inSite('cache') },
      to: { path: inSite('search', 'pipeline', 'dev') },
    },
    {
      name: 'site-search-imports-no-pipeline',
      comment: 'site/search/ (the search index, its archives in the cache\'s file format) imports data/, render/ and cache/, never pipeline/ or dev/, which run it.',
      severity: 'error',
      from: { path: inSite('search') },
      to: { path: inSite('pipeline', 'dev') },
    },
    {
      name: 'site-pipeline-imports-no-dev',
      comment: 'site/pipeline/ (the pipeline that runs data, render, cache and search) does not import dev/ (the preview, which runs the pipeline).',
      severity: 'error',
      from: { path: inSite('pipeline') },
      to: { path: inSite('dev') },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles (it replaced madge --circular).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'Every module is imported by another, but the entry points: the bin, the library, the worker-thread modules (loaded by URL) and the ambient declarations.',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: ['^src/(cli|index)\\.ts$', '-worker\\.ts$', '\\.d\\.ts$'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are arrows too: a layer does not name the types of one above it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
