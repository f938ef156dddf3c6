import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The conformance suite: real runner CLIs, slower, so kept out of the unit run.
export default defineConfig({
  test: {
    include: ['test/runners/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    env: { XDG_CACHE_HOME_TESTS: join(tmpdir(), 'gateline-test-cache') },
  },
});
