/**
 * The content directory's layout every layer shares (docs/entry-file.md, "Images and links";
 * docs/site.md#images): the entry files' folder, and the local images' folders in the content
 * and site directories, both published at `/images/`.
 */

/** The folder name of local images, in the content directory and in the site directory, and their URL path on the site (`/images/`). */
export const IMAGES_DIR = 'images';

/** The folder of the entry files in the content directory (`content/entries/*.md`). */
export const ENTRIES_DIR = 'entries';
