/** Terminal styling: ANSI colours when writing to a terminal, plain text otherwise. */

export type Style = {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly red: (text: string) => string;
};

const ansi =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const plain = (text: string): string => text;

export const PLAIN: Style = { bold: plain, dim: plain, green: plain, yellow: plain, red: plain };

export const COLOURS: Style = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  red: ansi(31, 39),
};

/** Colours only on a terminal, and never when `NO_COLOR` is set non-empty (no-color.org) or TERM is dumb. */
export const styleFor = (args: {
  readonly isTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}): Style => (args.isTTY && (args.env.NO_COLOR ?? '') === '' && args.env.TERM !== 'dumb' ? COLOURS : PLAIN);
