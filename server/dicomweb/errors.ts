/**
 * Failures of DICOMweb requests that the error catalogue has no code for (406 Not
 * Acceptable, 415 Unsupported Media Type, 413, 501): the plugin's error handler sends
 * them with their HTTP status and a short English diagnostic, which is what DICOMweb
 * clients log. Catalogue failures (PACS100, PACS006, UAA*) stay AppErrors.
 */
export class DicomWebError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

export const notAcceptable = (message: string) => new DicomWebError(406, message);
