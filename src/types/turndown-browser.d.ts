// turndown's browser build (same API as the package's main module; see markdown-rules.ts).
declare module 'turndown/lib/turndown.browser.cjs.js' {
  import TurndownService from 'turndown';
  export default TurndownService;
}
