// What mpay writes for a person passes through clean() first, so that nothing from the server, a file or
// the user can drive the terminal it is printed on. It lives below everything that prints (the IO object
// uses it for every note), so that no module has to import upwards for it.
// C0 controls but tab and newline, DEL, C1 controls (U+009B is a CSI of its own), the escape sequences
// they start, and the bidi and format characters that reorder what a terminal shows (U+202A-202E,
// U+2066-2069, the marks U+200E, U+200F and U+061C).
export const escapeSequence =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

/** The text with every escape sequence, control and bidi character made visible (\\x1b, \\u202e). */
export function clean(text: string): string {
  return text.replace(escapeSequence, (m) =>
    [...m]
      .map((ch) =>
        ch.charCodeAt(0) < 0x20 || (ch.charCodeAt(0) >= 0x7f && ch.charCodeAt(0) <= 0x9f)
          ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`
          : /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/.test(ch)
            ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
            : ch,
      )
      .join(''),
  );
}
