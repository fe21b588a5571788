// --query: a JMESPath expression over a command's --json document (as the AWS and Azure CLIs' --query),
// so that a script needs no jq. JMESPath because it is a specified language with one grammar across
// tools and a maintained TypeScript implementation (@jmespath-community/jmespath); jq syntax would need a
// WebAssembly build or a partial port.
import { compile, search, type JSONValue } from '@jmespath-community/jmespath';
import { UsageError } from '../common/errors.js';

/** Checks an expression before anything is sent: a bad one is a usage error that points at the mistake. */
export function checkQuery(expression: string): void {
  try {
    compile(expression);
  } catch (err) {
    const message = (err as Error).message.replace(/^Syntax error: /, '');
    // The parser names the token it choked on; find it in the expression to say where.
    const token = /: "(.*)"$/.exec(message)?.[1] ?? /unknown character: (.)$/.exec(message)?.[1];
    const at = token ? expression.lastIndexOf(token) : expression.length;
    throw new UsageError(
      `Invalid --query "${expression}": ${message.replace(/ \(EOF\): ""$/, ': the expression ends too early')} at character ${(at < 0 ? expression.length : at) + 1}`,
      {
        hint: 'JMESPath, e.g. --query "[].code" or --query "data.processed.status"; see docs/output.md',
      },
    );
  }
}

/** The document filtered by the expression. */
export function applyQuery(expression: string, document: unknown): unknown {
  return search(document as JSONValue, expression);
}
