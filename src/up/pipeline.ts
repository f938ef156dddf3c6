import { resumeTemplate } from './argv.ts';
import { PIPELINE } from './dispatch.ts';
import type { Lane } from './lanes.ts';
import { composePrompt, composeResume, type Report } from './prompt.ts';
import { runStep, type StepContext, type StepResult } from './step.ts';
import { readVerdict } from './verdict.ts';
import type { Watch } from './watch.ts';

// planner -> implementer -> reviewer (-> implementer -> reviewer, at most `rounds` times) -> verifier.
// Each role gets the task and the latest report of every role that ran before it. The verifier's
// verdict is the run's result.

export interface PipelineInput {
  task: string;
  lanes: Map<string, Lane>;
  rounds: number;
  step: StepContext;
  /** Progress lines. */
  log: (line: string) => void;
  /** Filled as steps complete, so a failed run still has its finished steps for the summary. */
  steps: StepResult[];
  /** The checks around each step: frozen definitions, and the tree of a read-only role. */
  watch?: Watch;
}

export interface Outcome {
  code: 0 | 1;
  verdict?: string;
  reason: string;
}

export async function runPipeline(input: PipelineInput): Promise<Outcome> {
  const { task, lanes, rounds, log } = input;
  const latest = new Map<string, Report>();
  const reports = () => PIPELINE.flatMap((role) => latest.get(role) ?? []);
  const lane = (role: string) => lanes.get(role) as Lane;

  const run = async (role: string, prompt: string, session?: string) => {
    const { binding, adapter, agent, env, grants } = lane(role);
    const label = `${String(input.steps.length + 1).padStart(2, '0')}-${role}`;
    log(`${role}: ${adapter.name} (${binding.model})${session ? `, continuing session ${session}` : ''}`);
    const before = input.watch?.before(role, label);
    let result: StepResult;
    try {
      result = await runStep({ label, binding, adapter, prompt, agent, session, env, grants }, input.step);
    } catch (error) {
      // The step's own failure is the one reported; a read-only role that also changed the tree is said too.
      try {
        input.watch?.after(role, label, before);
      } catch (also) {
        log((also as Error).message);
      }
      throw error;
    }
    input.steps.push(result);
    input.watch?.after(role, label, before);
    latest.set(role, { role, adapter: adapter.name, model: binding.model, text: result.parsed.text });
    const verdict = readVerdict(result.parsed.text);
    const cost = result.meter.costUsd === undefined ? 'cost unknown' : `$${result.meter.costUsd.toFixed(4)} ${result.meter.basis}`;
    log(`${role}: done${verdict ? `, VERDICT: ${verdict}` : ''} (${cost})`);
    return result;
  };
  const fresh = (role: string, note?: string) =>
    composePrompt({ role, task, reports: reports(), instructions: lane(role).instructions, note });

  await run('planner', fresh('planner'));
  let session = (await run('implementer', fresh('implementer'))).parsed.session;
  for (let round = 1; ; round++) {
    const review = await run('reviewer', fresh('reviewer'));
    const verdict = readVerdict(review.parsed.text);
    if (verdict === undefined) log('reviewer: no VERDICT line; going on to the verifier, whose verdict decides');
    if (verdict !== 'REQUEST_CHANGES') break;
    if (round > rounds) {
      return {
        code: 1,
        verdict,
        reason: `the reviewer still requests changes after ${rounds} round(s) of changes; the verifier was not run`,
      };
    }
    const implementer = lane('implementer');
    const report = latest.get('reviewer') as Report;
    if (session && resumeTemplate(implementer.adapter)) {
      session = (await run('implementer', composeResume(report, round, rounds), session)).parsed.session ?? session;
    } else {
      // No session to continue (Gemini CLI's headless block gives no resume): a fresh run with the whole context.
      const note = `The reviewer requested changes (round ${round} of ${rounds}). Your previous report and the review are below; address every finding in the working tree and report again.`;
      session = (await run('implementer', fresh('implementer', note))).parsed.session;
    }
  }

  const verified = await run('verifier', fresh('verifier'));
  const verdict = readVerdict(verified.parsed.text);
  if (verdict === 'PASS') return { code: 0, verdict, reason: 'the verifier says PASS' };
  if (verdict === 'FAIL') return { code: 1, verdict, reason: 'the verifier says FAIL' };
  return {
    code: 1,
    verdict,
    reason: `the verifier gave ${verdict ? `an unknown verdict '${verdict}'` : 'no VERDICT line'}, which counts as FAIL`,
  };
}
