/**
 * What `kreconcile validate` found, input by input: every Application (or plain resource) checked,
 * valid or with its errors, and the errors of inputs that could not be read at all. Printed as
 * text (valid inputs on stdout, one line per error on stderr), as JSON
 * (`kreconcile.io/validate/v1` `ValidationReport`, docs/cli.md) or as JUnit XML for CI test reports.
 */
import { showCliError, showLocation, type CliError } from '../cli-error.js';

/** One checked input: an Application, or a plain resource, where it was read and its errors. */
export type CheckedInput = {
  readonly subject: string;
  readonly file: string;
  readonly document: number;
  /** A note shown after `valid` (`translated from …`). */
  readonly note?: string;
  readonly errors: ReadonlyArray<CliError>;
};

export type ValidationReport = {
  readonly inputs: ReadonlyArray<CheckedInput>;
  /** Errors about no one input (an unreadable file, a flag, the cluster). */
  readonly other: ReadonlyArray<CliError>;
};

export const reportIsValid = (report: ValidationReport): boolean =>
  report.other.length === 0 && report.inputs.every((input) => input.errors.length === 0);

/** `Application shop/web (app.yaml, document 1): valid`, one line per valid input. */
export const validLines = (report: ValidationReport): string =>
  report.inputs
    .filter((input) => input.errors.length === 0)
    .map((input) => `${input.subject} (${input.file}, document ${input.document}): valid${input.note ?? ''}\n`)
    .join('');

const errorJson = (error: CliError) => ({
  ...(error.location === undefined ? {} : { location: showLocation(error.location) }),
  ...(error.location?.line === undefined ? {} : { line: error.location.line, column: error.location.column ?? 1 }),
  ...(error.path === undefined || error.path === '' ? {} : { path: error.path }),
  message: error.message,
  text: showCliError(error),
});

/** The `-o json` document. */
export const reportJson = (report: ValidationReport): string =>
  `${JSON.stringify(
    {
      apiVersion: 'kreconcile.io/validate/v1',
      kind: 'ValidationReport',
      valid: reportIsValid(report),
      inputs: report.inputs.map((input) => ({
        subject: input.subject,
        file: input.file,
        document: input.document,
        valid: input.errors.length === 0,
        errors: input.errors.map(errorJson),
      })),
      errors: report.other.map(errorJson),
    },
    null,
    2,
  )}\n`;

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text as XML character data or attribute value: escaped, and without the control characters XML 1.0 forbids. */
const xml = (text: string): string =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);

const testCase = (file: string, name: string, errors: ReadonlyArray<CliError>): string => {
  const head = `    <testcase classname="${xml(file)}" name="${xml(name)}"`;
  const [first] = errors;
  if (first === undefined) return `${head}/>\n`;
  const body = errors.map((error) => xml(showCliError(error))).join('\n');
  return `${head}>\n      <failure message="${xml(first.message)}" type="${first._tag}">${body}</failure>\n    </testcase>\n`;
};

/** The `-o junit` document: one test suite per file, one test case per input (and one for errors about no input). */
export const reportJunit = (report: ValidationReport): string => {
  const files = [...new Set(report.inputs.map((input) => input.file))];
  const suites = files.map((file) => {
    const inputs = report.inputs.filter((input) => input.file === file);
    const failures = inputs.filter((input) => input.errors.length > 0).length;
    const cases = inputs.map((input) => testCase(file, `${input.subject} (document ${input.document})`, input.errors));
    return `  <testsuite name="${xml(file)}" tests="${inputs.length}" failures="${failures}">\n${cases.join('')}  </testsuite>\n`;
  });
  const other =
    report.other.length === 0
      ? []
      : [
          `  <testsuite name="inputs" tests="1" failures="1">\n${testCase('inputs', 'inputs are readable', report.other)}  </testsuite>\n`,
        ];
  const tests = report.inputs.length + (report.other.length === 0 ? 0 : 1);
  const failures =
    report.inputs.filter((input) => input.errors.length > 0).length + (report.other.length === 0 ? 0 : 1);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="kreconcile validate" tests="${tests}" failures="${failures}">\n${[...suites, ...other].join('')}</testsuites>\n`;
};
