// The runner CLIs behind the shipped adapters: their npm package (how to install them) and the
// version the conformance suite (test/runners) proves. The command comes from each manifest's
// `headless.command`, so it is written down once.
export interface RunnerFacts {
  package: string;
  /** The version test/runners installs and checks; older ones are reported by `gateline doctor`. */
  proven: string;
}

export const RUNNERS: Record<string, RunnerFacts> = {
  'claude-code': { package: '@anthropic-ai/claude-code', proven: '2.1.332' },
  codex: { package: '@openai/codex', proven: '0.171.0' },
  copilot: { package: '@github/copilot', proven: '1.0.102' },
  'gemini-cli': { package: '@google/gemini-cli', proven: '0.61.0' },
  opencode: { package: 'opencode-ai', proven: '1.18.33' },
};
