import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './problem.ts';

/** parseArgs, where a bad flag is a usage error (exit 2) in parseArgs' own words, without its hint. */
export function parseFlags<const C extends ParseArgsConfig>(config: C): ReturnType<typeof parseArgs<C>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
}
