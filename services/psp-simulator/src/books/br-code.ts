import { createDynamicPix, hasError } from 'pix-utils';

/**
 * A dynamic Pix BR Code (EMV QRCPS-MPM with GUI br.gov.bcb.pix, the charge's location URL, merchant
 * name and city, CRC16/CCITT-FALSE), built by pix-utils rather than by hand.
 */
export function dynamicBrCode(params: { merchantName: string; merchantCity: string; location: string }): string {
  const pix = createDynamicPix({
    merchantName: params.merchantName,
    merchantCity: params.merchantCity,
    url: params.location,
  });
  if (hasError(pix)) throw new Error(`cannot build BR Code: ${pix.message}`);
  return pix.toBRCode();
}
