import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/runners/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // degit keeps a download cache under XDG_CACHE_HOME: keep the tests' out of the user's home.
    env: { XDG_CACHE_HOME: join(tmpdir(), 'gateline-test-cache') },
  },
});
