// Declarations for dependencies that ship no TypeScript types. A plugin's configuration
// parameter is typed `never`: it accepts a function of any configuration type without an `any`.

declare module '@11ty/eleventy' {
  /** What the site plugin, the preview and their helpers use of Eleventy's configuration object. */
  export interface EleventyConfig {
    addPlugin(plugin: unknown, options?: unknown): void;
    addGlobalData(name: string, data: unknown): void;
    addPassthroughCopy(path: string | Record<string, string>): void;
    addFilter(name: string, fn: (...args: never[]) => unknown): void;
    getFilter(name: string): (...args: unknown[]) => unknown;
    addPairedShortcode(name: string, fn: (...args: never[]) => unknown): void;
    addTemplate(virtualPath: string, content: unknown, data?: Record<string, unknown>): void;
    addPreprocessor(name: string, extensions: string, fn: (this: { inputPath: string }, data: Record<string, unknown>, content: string) => unknown): void;
    addTransform(name: string, fn: (this: { page?: { outputPath?: string | false } }, content: unknown) => unknown): void;
    addBundle?(name: string, options?: Record<string, unknown>): void;
    addWatchTarget(path: string): void;
    setUseGitIgnore(use: boolean): void;
    setServerOptions(options: Record<string, unknown>): void;
    setChokidarConfig(options: Record<string, unknown>): void;
    watchIgnores: Set<string>;
    on(event: 'eleventy.beforeWatch', fn: (queue: string[]) => unknown): void;
    on(event: string, fn: (arg?: { results?: Array<{ outputPath?: string | false }> }) => unknown): void;
    /** Its HTML transformer: URL callbacks per extension (the HTML base plugin's among them). */
    htmlTransformer?: { callbacks?: Record<string, Array<{ priority: number; enabled?: (context: { baseHref?: unknown }) => boolean }>> };
    globalData?: Record<string, unknown>;
    /** Its folders (the output: where plain Eleventy and `dev` write the entries' encoded images). */
    directories?: { output?: string };
  }
  export interface EleventyOptions {
    quietMode?: boolean;
    configPath?: string;
    config?: (eleventyConfig: never) => void | Promise<void>;
    runMode?: 'build' | 'watch' | 'serve';
    /** The base path URLs get from the HTML base plugin and the `url` filter (default `/`). */
    pathPrefix?: string;
  }
  export default class Eleventy {
    constructor(input?: string, output?: string, options?: EleventyOptions);
    write(): Promise<unknown>;
    watch(): Promise<void>;
    serve(port?: number): Promise<void>;
    stopWatch(): Promise<void>;
    init(): Promise<void>;
    logger: { overrideLogger(logger: unknown): void };
  }
}

declare module '@11ty/eleventy-plugin-rss' {
  const rssPlugin: (eleventyConfig: never, options?: unknown) => void;
  export default rssPlugin;
}

declare module '@11ty/eleventy-plugin-bundle' {
  const bundlePlugin: (eleventyConfig: never, options?: unknown) => void;
  export default bundlePlugin;
}

declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
}

// @11ty/eleventy-img 6 (CommonJS, no types): what image-store.ts and images.ts use of it.
declare module '@11ty/eleventy-img' {
  /** One output file of an image (the library's "stat"). */
  export interface EleventyImageStat {
    /** `webp`, `png`, `jpeg`, `gif`, `avif` or `svg`. */
    format: string;
    /** Pixels. */
    width: number;
    height: number;
    /** Site-relative, under `/img/` (image-store.ts). */
    url: string;
    /** Its media type (`image/webp`). */
    sourceType: string;
    /** `url` and its width descriptor (`/img/x-720.webp 720w`). */
    srcset: string;
    /** Its name in the store and in the output's `img/`. */
    filename?: string;
    /** Where it was written on this machine (never kept: not portable). */
    outputPath?: string;
    /** Bytes. */
    size?: number;
  }
  /** The outputs of one image by format (`webp`, `png`, `svg`, ...), smallest width first. */
  export type EleventyImageMetadata = Record<string, EleventyImageStat[]>;
  const Image: (src: string | Buffer, options?: Record<string, unknown>) => Promise<EleventyImageMetadata>;
  export default Image;
  /** A tag with its attributes; `<picture>`'s children under `@children`. */
  export type ImageMarkupObject = Record<string, Record<string, unknown>>;
  /** The markup of an image as tags and attributes (the values not escaped). */
  export function generateObject(metadata: EleventyImageMetadata, imgAttributes?: Record<string, unknown>): ImageMarkupObject;
}
