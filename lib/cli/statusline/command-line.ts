/**
 * `watch --exec CMD` without a shell: CMD split into words the way a POSIX shell would split a
 * command line without expansions — blanks separate words, '…' is literal, "…" keeps \" \\ \$ \`
 * escapes, a backslash outside quotes escapes the next character. No $VAR, globs, pipes or
 * redirections: that is what `--exec-shell` is for.
 */
import { UsageError } from '../args.js';

export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new UsageError('--exec: unclosed single quote');
      word += text.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1]!)) j++;
        word += text[j];
      }
      if (j >= text.length) throw new UsageError('--exec: unclosed double quote');
      i = j;
    } else if (ch === '\\') {
      if (i + 1 < text.length) word += text[++i];
    } else word += ch;
  }
  if (inWord) words.push(word);
  if (words.length === 0) throw new UsageError('--exec needs a command');
  return words;
}
