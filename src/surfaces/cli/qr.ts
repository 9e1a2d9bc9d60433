/** A QR code of a link, drawn in text for a terminal (the pairing link, for a phone's camera). */
import { createRequire } from 'node:module';

interface QrcodeTerminal {
  generate(text: string, options: { small: boolean }, done: (drawn: string) => void): void;
}

export function qrText(link: string): string {
  // qrcode-terminal ships no types and is CommonJS; loaded only where a code is drawn.
  const qrcode = createRequire(import.meta.url)('qrcode-terminal') as QrcodeTerminal;
  let drawn = '';
  qrcode.generate(link, { small: true }, (text) => (drawn = text));
  return drawn;
}
