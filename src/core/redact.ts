/**
 * Redaction of what looks like a secret or a person in text kinetoscope writes (`--redact`):
 *
 *   token     a token with a known prefix: hf_ (Hugging Face), ghp_/gho_/ghu_/ghs_/ghr_ and
 *             github_pat_ (GitHub), sk- (OpenAI and others), AKIA/ASIA (AWS key ids), xox?- (Slack),
 *             glpat- (GitLab)                                   → [redacted-token]
 *   entropy   a run of 32+ letters, digits, `+/_-` holding digits and letters, with no run of 5
 *             lowercase letters (names and mangled C++ symbols have words) and ≥ 4 bits of entropy
 *             per character                                       → [redacted-secret]
 *   email     user@host                                          → [redacted-user@host]
 *   home      /home/NAME, /Users/NAME, C:\Users\NAME, /root     → ~
 *
 * The replacements hold no quote and no backslash, so JSON text stays valid JSON. Pure.
 */

export type RedactionKind = 'token' | 'entropy' | 'email' | 'home';

export class Redactor {
  readonly counts: Record<RedactionKind, number> = { token: 0, entropy: 0, email: 0, home: 0 };

  get total(): number {
    return this.counts.token + this.counts.entropy + this.counts.email + this.counts.home;
  }

  /** `text` with every match replaced, counted by kind. */
  redact(text: string): string {
    return text
      .replace(TOKEN, () => {
        this.counts.token++;
        return '[redacted-token]';
      })
      .replace(EMAIL, () => {
        this.counts.email++;
        return '[redacted-user@host]';
      })
      .replace(HOME, (_m, sep: string) => {
        this.counts.home++;
        return `~${sep ?? ''}`;
      })
      .replace(LONG_RUN, (m) => {
        if (!looksSecret(m)) return m;
        this.counts.entropy++;
        return '[redacted-secret]';
      });
  }

  /** One line for stderr: how much was redacted, by kind. */
  summary(): string {
    const parts = (Object.keys(this.counts) as RedactionKind[]).filter((k) => this.counts[k] > 0).map((k) => `${this.counts[k]} ${LABEL[k][this.counts[k] === 1 ? 0 : 1]}`);
    return `redacted ${this.total} string${this.total === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''}`;
  }
}

/** Each kind's name, [one, several]. */
const LABEL: Record<RedactionKind, readonly [string, string]> = {
  token: ['token', 'tokens'],
  entropy: ['high-entropy string', 'high-entropy strings'],
  email: ['user@host', 'user@host'],
  home: ['home directory', 'home directories'],
};

const TOKEN = /(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,})/g;
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*/g;
const HOME = /(?:\/home\/|\/Users\/|[A-Za-z]:\\\\?Users\\\\?)[^/\\\s"'<>:]+(\/|\\\\?)?|\/root(?=\/)/g;
const LONG_RUN = /[A-Za-z0-9+/_-]{32,}/g;

function looksSecret(s: string): boolean {
  if (!/[0-9]/.test(s) || !/[A-Za-z]/.test(s) || /[a-z]{5}/.test(s)) return false;
  const freq = new Map<string, number>();
  for (const c of s) freq.set(c, (freq.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of freq.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h >= 4;
}
