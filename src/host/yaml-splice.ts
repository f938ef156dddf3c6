import { type Document, isMap, isScalar, isSeq, type Node, type Pair, stringify, type YAMLMap, type YAMLSeq } from 'yaml';

// Edits a host's YAML config as text, so every line the installer does not own stays byte for
// byte (a re-serialised document would re-space `[a, b]` as `[ a, b ]`, and the host's own
// formatter would then fail). Each function returns undefined where the document is not plain
// block style; the caller then falls back to editing the parsed document.

/** `text` with `value` set at `path` (mappings only), inserted or replaced in place. */
export function spliceSet(text: string, doc: Document, path: string[], value: unknown): string | undefined {
  let node: unknown = doc.contents;
  if (node === null) return appendBlock(text, nested(path, value));
  for (const [i, key] of path.entries()) {
    if (!isBlockMap(node)) return undefined;
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<unknown, unknown> | undefined;
    if (!pair) return insertAt(text, node, nested(path.slice(i), value));
    if (i === path.length - 1) {
      const leaf = pair.value;
      if (!isScalar(leaf) || !leaf.range) return undefined;
      if (leaf.value === value) return text;
      return `${text.slice(0, leaf.range[0])}${block(value, 0).trimEnd()}${text.slice(leaf.range[1])}`;
    }
    node = pair.value;
  }
  return undefined;
}

/** `text` with `item` added at the end of the block sequence `seq`. */
export function spliceAppend(text: string, seq: YAMLSeq, item: unknown): string | undefined {
  if (seq.flow || !seq.range || seq.items.length === 0) return undefined;
  return insertAt(text, seq, [item]);
}

/** `text` with the block mapping `node` (an item of a block sequence) replaced by `value`. */
export function spliceReplace(text: string, node: Node, value: unknown): string | undefined {
  if (!isBlockMap(node) || !node.range) return undefined;
  const [start, end] = node.range;
  const column = columnOf(text, start);
  const body = block(value, column).slice(column);
  // The node's text ends with its newline unless it ends the file without one.
  return `${text.slice(0, start)}${text.slice(start, end).endsWith('\n') ? body : body.trimEnd()}${text.slice(end)}`;
}

function isBlockMap(node: unknown): node is YAMLMap {
  return isMap(node) && !node.flow && node.range !== undefined && node.range !== null;
}

function nested(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** Inserts `value` (block YAML) at the end of a block collection, at that collection's indentation. */
function insertAt(text: string, node: YAMLMap | YAMLSeq, value: unknown): string | undefined {
  if (!node.range || (isSeq(node) && node.flow)) return undefined;
  const at = node.range[1];
  const lead = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return `${text.slice(0, at)}${lead}${block(value, columnOf(text, node.range[0]))}${text.slice(at)}`;
}

function appendBlock(text: string, value: unknown): string {
  const lead = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${lead}${block(value, 0)}`;
}

/** `value` as block YAML, every line indented by `column` spaces, strings quoted only where YAML needs it. */
function block(value: unknown, column: number): string {
  const yaml = stringify(value, { indent: 2, defaultKeyType: 'PLAIN', lineWidth: 0 });
  return yaml
    .split('\n')
    .map((line) => (line ? `${' '.repeat(column)}${line}` : line))
    .join('\n');
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}
