import type { Frozen } from './frozen.ts';
import type { RunRecord } from './record.ts';
import { StepError } from './step.ts';
import { type Tree, treeChanges, treeState } from './tree.ts';

// The checks around every step: the definitions a runner reads are the ones the run started with
// (frozen.ts), and a role without `edit` and `write` left the tree as it found it (tree.ts).
// Either failing stops the run (exit 1) with the files named and left in place for inspection.

export interface Watch {
  /** Before a step starts: throws when its runner would read changed definitions. Returns what after() compares with. */
  before(role: string, label: string): Tree | undefined;
  /** After the step: throws when the definitions or, for a read-only role, the tree changed. */
  after(role: string, label: string, before: Tree | undefined): void;
}

export interface WatchInput {
  root: string;
  frozen: Frozen;
  /** Roles without edit and write. */
  readOnly: Set<string>;
  /** Never compared: the run records. */
  skip: string[];
  record: RunRecord;
}

export function watch(input: WatchInput): Watch {
  const tree = () => treeState(input.root, { skip: input.skip, always: input.frozen.folders });
  const fail = (kind: 'definitions changed' | 'tree changed', label: string, message: string): never => {
    const text = `${message}. The run record is in ${input.record.display}/${label}/`;
    input.record.write(`${label}/error.txt`, `${kind}: ${text}\n`);
    throw new StepError(kind, text, `${input.record.display}/${label}/error.txt`);
  };
  const definitions = (role: string, label: string, what: string) => {
    const changed = input.frozen.changes();
    if (changed.length === 0) return;
    fail(
      'definitions changed',
      label,
      `${role}: ${what} not the ones the run started with: ${list(changed)}. ` +
        'gateline up runs every lane from the definitions rendered at the start and refuses other ones; the files are left as they are for inspection: ' +
        'review them, render again if they are meant, and start a new run',
    );
  };
  return {
    before(role, label) {
      definitions(role, label, 'was not started: the agent definitions its runner would read are');
      return input.readOnly.has(role) ? tree() : undefined;
    },
    after(role, label, before) {
      definitions(role, label, 'the run stops after this step: while it ran, the agent definitions the later lanes read changed; they are');
      if (!before) return;
      const changed = treeChanges(before, tree());
      if (changed.length === 0) return;
      fail(
        'tree changed',
        label,
        `${role}: changed the tree, which a role without edit or write must not do: ${list(changed)}. The files are left as they are for inspection`,
      );
    },
  };
}

const list = (changed: string[]) =>
  changed.length > 20 ? `${changed.slice(0, 20).join(', ')} and ${changed.length - 20} more` : changed.join(', ');
