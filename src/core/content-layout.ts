/**
 * The layout of a content directory that every layer shares (docs/entry-file.md, "Images and
 * links"; docs/site.md#images): the folder of the entry files, and the folder of a team's
 * local images, in the content directory (`content/images/`) and in the site directory
 * (`site/images/`), both published at `/images/`. Every layer reads the entries there; the
 * entry format resolves and checks image references against the images folder, push probes
 * an image's published URL with it, and the build copies and encodes from it: one name
 * each, in the layer below them all.
 *
 * @module
 */

/** The folder name of local images, in the content directory and in the site directory, and their URL path on the site (`/images/`). */
export const IMAGES_DIR = 'images';

/** The folder of the entry files in the content directory (`content/entries/*.md`). */
export const ENTRIES_DIR = 'entries';
