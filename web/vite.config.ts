/**
 * The console's build: web/ bundled into dist/web/ with relative asset paths (it is served under
 * /console/), one small JS and one CSS file, no source maps, nothing fetched at run time.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
