import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** Fetches a QR code image and decodes it with a real QR decoder; null when it holds no QR code. */
export async function decodeQrImage(url: string): Promise<string | null> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}
