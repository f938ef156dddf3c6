import { modelFor } from '../render/model.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';

// The dispatch seam: which adapter and model runs each role. Pure (no files, no processes), so
// the decorrelation rules are tested directly.
//
// Decorrelation: the registry pins the reviewer and verifier to "avoid_vendor_of: implementer".
// A reviewer on the implementer's vendor tends to share its blind spots, so the pins are the
// point of running more than one runner at all.

/** The roles `gateline up` runs, in order. */
export const PIPELINE = ['planner', 'implementer', 'reviewer', 'verifier'] as const;

export interface DispatchAdapter {
  name: string;
  /** The manifest's display path, for messages. */
  file: string;
  roles: string[];
  modelMap: Record<string, string>;
  modelOverrides: Record<string, string>;
  vendors: Record<string, string>;
}

export interface DispatchRole {
  name: string;
  /** The role's capability_profile. */
  profile: string;
}

export interface DispatchInput {
  /** In --adapter order: earlier is preferred. */
  adapters: DispatchAdapter[];
  /** In pipeline order. */
  roles: DispatchRole[];
  pins: Record<string, { avoidVendorOf: string; line?: number }>;
  /** Where the pins are written (the registry's display path), so a broken pin can be pointed at. */
  pinsFile?: string;
  /** role -> adapter, from --bind. */
  forced?: Record<string, string>;
}

/** 'ok': the role's pin holds; 'advisory': it is broken because one adapter cannot meet it; 'n/a': the role has no pin. */
export type PinStatus = 'ok' | 'advisory' | 'n/a';

export interface Binding {
  role: string;
  adapter: string;
  model: string;
  vendor: string;
  pin: PinStatus;
}

export interface Dispatch {
  bindings: Binding[];
  /** One "vendor-pin advisory" per role whose pin one adapter cannot meet; the caller logs each once. */
  advisories: string[];
}

/**
 * A reviewer or verifier bound to the implementer's vendor while another adapter is configured:
 * a problem at the broken pin (exit 1), kept as a class for the two bindings it names.
 */
export class VendorPinError extends FrameworkError {
  override name = 'VendorPinError';
  readonly binding: Binding;
  readonly avoided: Binding;
  /** The error as a problem at the broken pin, for --json. */
  readonly problem: Problem;
  constructor(
    binding: Binding,
    avoided: Binding,
    configured: string[],
    forced: Record<string, string>,
    pin: { file?: string; line?: number } = {},
  ) {
    const bound = own(forced, binding.role) ?? own(forced, avoided.role);
    const forcedRole = own(forced, binding.role) ? binding.role : avoided.role;
    super(
      [],
      [
        `vendor pin violated: the ${binding.role} must not share a model vendor with the ${avoided.role} (registry pin 'avoid_vendor_of: ${avoided.role}'), ` +
          `but no binding the configured adapters allow keeps them apart:`,
        `  ${pad(avoided.role)} adapter ${avoided.adapter}, model ${avoided.model}, vendor ${avoided.vendor}`,
        `  ${pad(binding.role)} adapter ${binding.adapter}, model ${binding.model}, vendor ${binding.vendor}`,
        `Fix: add an --adapter whose model for the ${binding.role} comes from another vendor than ${binding.vendor} (configured: ${configured.join(', ')}), ` +
          (bound ? `or change --bind ${forcedRole}=${bound}.` : `or --bind ${binding.role}=<an adapter of another vendor>.`),
      ].join('\n'),
    );
    this.binding = binding;
    this.avoided = avoided;
    this.problem = { file: pin.file ?? '--adapter', ...(pin.line ? { line: pin.line } : {}), message: this.message };
    this.problems.push(this.problem);
  }
}

const pad = (role: string) => `${role}:`.padEnd(13);

/** A record's own value: a role named like an Object method (`constructor`) must not find one on the prototype. */
const own = <T>(record: Record<string, T>, key: string): T | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

type Option = Omit<Binding, 'pin'>;

/**
 * Binds every role. Preference: for each role in pipeline order, the first adapter in --adapter
 * order that the role's manifest entry allows (a --bind leaves one choice). Among all such
 * assignments, the first in that preference order that satisfies every pin wins; so when the
 * greedy choice meets the pins it is the answer, and when it does not, the earlier roles' later
 * choices are tried before giving up (claude-code + codex: the implementer moves to codex).
 * When no assignment satisfies the pins: with one adapter the pin is advisory and that adapter
 * runs everything; with more, VendorPinError names the first pin the greedy choice breaks.
 */
export function dispatch(input: DispatchInput): Dispatch {
  const forced = input.forced ?? {};
  const problems: Problem[] = [];
  const options = input.roles.map((role) => optionsFor(role, input.adapters, forced, problems));
  if (problems.length) throw new FrameworkError(problems);

  const index = new Map(input.roles.map((r, i) => [r.name, i]));
  // Only pins between two roles of this pipeline mean anything here.
  const pins = input.roles.flatMap((r, i) => {
    const target = index.get(own(input.pins, r.name)?.avoidVendorOf ?? '');
    return target === undefined ? [] : [{ role: i, target }];
  });
  const violations = (chosen: Option[]) =>
    pins.filter((p) => chosen[p.role] && chosen[p.target] && chosen[p.role]?.vendor === chosen[p.target]?.vendor);

  const keeps = (partial: Option[]) => violations(partial).length === 0;
  const found = search(options, keeps);
  const chosen = found ?? greedy(options, keeps);
  const broken = found ? [] : violations(chosen);
  if (broken.length && input.adapters.length > 1) {
    const first = broken[0] as { role: number; target: number };
    const bind = (i: number): Binding => ({ ...(chosen[i] as Option), pin: 'n/a' });
    const role = bind(first.role);
    throw new VendorPinError(
      role,
      bind(first.target),
      input.adapters.map((a) => a.name),
      forced,
      { file: input.pinsFile, line: own(input.pins, role.role)?.line },
    );
  }

  const advisories: string[] = [];
  const bindings = chosen.map((option, i): Binding => {
    const pin = pins.find((p) => p.role === i);
    if (!pin) return { ...option, pin: 'n/a' };
    if (!broken.some((b) => b.role === i)) return { ...option, pin: 'ok' };
    const other = chosen[pin.target] as Option;
    advisories.push(
      `vendor-pin advisory: the ${option.role} runs on ${option.vendor} (${option.adapter}, ${option.model}), the same vendor as the ${other.role} ` +
        `(${other.adapter}, ${other.model}): with one adapter the pin 'avoid_vendor_of: ${other.role}' cannot be met, so their mistakes may be ` +
        'the same mistakes. Add an --adapter of another vendor to decorrelate them.',
    );
    return { ...option, pin: 'advisory' };
  });
  return { bindings, advisories };
}

/** Every adapter a role may run on, in preference order, with its model and vendor. */
function optionsFor(role: DispatchRole, adapters: DispatchAdapter[], forced: Record<string, string>, problems: Problem[]): Option[] {
  const pick = own(forced, role.name);
  let candidates = adapters.filter((a) => a.roles.includes(role.name));
  if (pick !== undefined) {
    const adapter = adapters.find((a) => a.name === pick);
    if (!adapter) {
      problems.push({
        file: '--bind',
        message: `${role.name}=${pick}: '${pick}' is not one of the --adapter values (${adapters.map((a) => a.name).join(', ')})`,
      });
      return [];
    }
    if (!adapter.roles.includes(role.name)) {
      problems.push({
        file: adapter.file,
        message: `--bind ${role.name}=${pick}: ${pick} does not run the ${role.name} (its roles: ${adapter.roles.join(', ') || 'none'})`,
      });
      return [];
    }
    candidates = [adapter];
  }
  if (candidates.length === 0) {
    problems.push({
      file: '--adapter',
      message: `no configured adapter runs the ${role.name} (${adapters.map((a) => `${a.name} runs ${a.roles.join(', ') || 'nothing'}`).join('; ')}): add an --adapter whose manifest lists it`,
    });
  }
  const options: Option[] = [];
  for (const adapter of candidates) {
    const model = modelFor(adapter, role.name, role.profile);
    if (!model) {
      problems.push({
        file: adapter.file,
        message: `no model for the ${role.name}: its capability_profile '${role.profile}' is not in model_map; add it, or set model_overrides.${role.name}`,
      });
      continue;
    }
    // Own keys only, as for the model: a model spelled like an Object method has no vendor.
    const vendor = own(adapter.vendors, model);
    if (!vendor) {
      problems.push({
        file: adapter.file,
        message: `model '${model}' (the ${role.name}'s) has no vendor in model_vendors: add "${model}": "<vendor>" so the pins can compare it`,
      });
      continue;
    }
    options.push({ role: role.name, adapter: adapter.name, model, vendor });
  }
  return options;
}

/**
 * Without a full answer, the greedy one: each role takes its first choice that keeps its pins
 * with the roles before it (else its first choice), so an error names the binding that truly
 * cannot be kept apart rather than one the router could have moved.
 */
function greedy(options: Option[][], ok: (partial: Option[]) => boolean): Option[] {
  const chosen: Option[] = [];
  for (const choices of options) chosen.push(choices.find((option) => ok([...chosen, option])) ?? (choices[0] as Option));
  return chosen;
}

/** The first assignment, in preference order, every prefix of which `ok` accepts. */
function search(options: Option[][], ok: (partial: Option[]) => boolean, partial: Option[] = []): Option[] | undefined {
  if (partial.length === options.length) return partial;
  for (const option of options[partial.length] ?? []) {
    const next = [...partial, option];
    if (!ok(next)) continue;
    const done = search(options, ok, next);
    if (done) return done;
  }
  return undefined;
}
