/**
 * Failures particular to DICOMweb (a bad query parameter, a representation we cannot
 * produce, a part type we do not take) as catalogue errors: the HTTP status DICOMweb
 * clients act on comes from the catalogue, the localized message says what is wrong
 * for a person, and `detail` keeps the precise English diagnostic clients log.
 */
import { AppError } from '../lib/errors';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'PACS516', // a query parameter is malformed
  404: 'PACS100', // the frame, image or study is not there
  406: 'PACS517', // the representation asked for cannot be produced
  415: 'PACS518', // the request body is not DICOM
  500: 'PACS519', // the stored image contradicts its own header
};

export class DicomWebError extends AppError {
  constructor(httpStatus: number, message: string) {
    super(CODE_BY_STATUS[httpStatus] ?? 'PACS519', undefined, { detail: message });
  }
}

export const notAcceptable = (message: string) => new DicomWebError(406, message);
