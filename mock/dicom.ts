/**
 * Synthetic DICOM studies written with dcmjs, for the demo archive, the tests and the
 * benchmarks: realistic patient, study and series tags, Chinese names in UTF-8
 * (ISO_IR 192), and pixel data of any size (small by default; 512x512 16-bit for the
 * benchmark's CT series). Deterministic: the same options give the same bytes, so a
 * test can compare what it sent with what the archive returns.
 */
import * as dcmjs from 'dcmjs';

const { DicomDict, DicomMetaDictionary } = dcmjs.data;

/** Storage SOP classes used by the generator (PS3.4 B.5). */
export const SOP_CLASS = {
  CT: '1.2.840.10008.5.1.4.1.1.2',
  MR: '1.2.840.10008.5.1.4.1.1.4',
  DX: '1.2.840.10008.5.1.4.1.1.1.1',
  CR: '1.2.840.10008.5.1.4.1.1.1',
  US: '1.2.840.10008.5.1.4.1.1.6.1',
  MG: '1.2.840.10008.5.1.4.1.1.1.2',
  OT: '1.2.840.10008.5.1.4.1.1.7',
} as const;

export const EXPLICIT_LITTLE_ENDIAN = '1.2.840.10008.1.2.1';
export const IMPLICIT_LITTLE_ENDIAN = '1.2.840.10008.1.2';

export interface SyntheticSeriesOptions {
  patientName?: string;
  /** Alphabetic (pinyin) component next to the ideographic name, e.g. "Zhang^San". */
  patientNameEn?: string;
  patientId?: string;
  birthDate?: string;
  sex?: 'M' | 'F' | 'O';
  accessionNumber?: string;
  studyUid?: string;
  seriesUid?: string;
  /** UID root for the generated UIDs; different roots give different studies. */
  uidRoot?: string;
  modality?: keyof typeof SOP_CLASS;
  studyDate?: string;
  studyTime?: string;
  studyDescription?: string;
  seriesNumber?: number;
  seriesDescription?: string;
  stationName?: string;
  /** Number of instances (slices). */
  count?: number;
  /** mm from one slice to the next along z (default 2.5); negative numbers the slices from the top down. */
  sliceSpacing?: number;
  rows?: number;
  columns?: number;
  institutionName?: string;
}

/** A UID under the root from numbers only (UIDs are digits and dots, at most 64 characters). */
function uid(root: string, ...parts: number[]): string {
  const value = [root, ...parts].join('.');
  if (value.length > 64) throw new Error(`UID too long: ${value}`);
  return value;
}

/** Pixel data of one slice: a disc whose brightness depends on the slice, on a dark background. */
function slicePixels(rows: number, columns: number, slice: number): Uint16Array {
  const pixels = new Uint16Array(rows * columns);
  const cy = rows / 2;
  const cx = columns / 2;
  const radius = Math.min(rows, columns) * 0.4;
  // Squared distances, not Math.hypot: a 300-slice 512x512 series is 78 million pixels,
  // and the square roots were most of a browser test's setup.
  const r2 = radius * radius;
  for (let y = 0; y < rows; y++) {
    const dy2 = (y - cy) * (y - cy);
    for (let x = 0; x < columns; x++) {
      pixels[y * columns + x] = dy2 + (x - cx) * (x - cx) < r2 ? 1000 + ((slice * 37 + x + y) % 400) : (x * 3 + y) % 50;
    }
  }
  return pixels;
}

export interface SyntheticInstance {
  sopInstanceUid: string;
  sopClassUid: string;
  /** A DICOM Part-10 file (preamble, meta header, dataset in explicit little endian). */
  bytes: Buffer;
}

export interface SyntheticSeries {
  studyUid: string;
  seriesUid: string;
  instances: SyntheticInstance[];
}

/** One series of `count` instances of one study, as Part-10 files. */
export function syntheticSeries(options: SyntheticSeriesOptions = {}): SyntheticSeries {
  const root = options.uidRoot ?? '1.2.826.0.1.3680043.10.1082';
  const modality = options.modality ?? 'CT';
  const sopClassUid = SOP_CLASS[modality];
  const studyUid = options.studyUid ?? uid(root, 1);
  const seriesNumber = options.seriesNumber ?? 1;
  const seriesUid = options.seriesUid ?? `${studyUid.slice(0, 56)}.${seriesNumber}`;
  const rows = options.rows ?? 64;
  const columns = options.columns ?? 64;
  const count = options.count ?? 3;
  const spacing = options.sliceSpacing ?? 2.5;
  const name = options.patientName ?? '张三';
  const nameEn = options.patientNameEn ?? 'Zhang^San';
  const instances: SyntheticInstance[] = [];
  for (let i = 1; i <= count; i++) {
    const sopInstanceUid = `${seriesUid.slice(0, 58)}.${i}`;
    const dataset: Record<string, unknown> = {
      SpecificCharacterSet: 'ISO_IR 192',
      ImageType: ['ORIGINAL', 'PRIMARY', 'AXIAL'],
      SOPClassUID: sopClassUid,
      SOPInstanceUID: sopInstanceUid,
      StudyDate: options.studyDate ?? '20261120',
      StudyTime: options.studyTime ?? '093000',
      Modality: modality,
      Manufacturer: 'RCLOUD-SYNTHETIC',
      InstitutionName: options.institutionName ?? 'Demo Hospital',
      StationName: options.stationName ?? 'SYNTH01',
      StudyDescription: options.studyDescription ?? 'Synthetic study',
      SeriesDescription: options.seriesDescription ?? `Synthetic ${modality} series`,
      // Alphabetic=Ideographic: the name with its pinyin, as Chinese modalities send it.
      PatientName: [{ Alphabetic: nameEn, Ideographic: name }],
      PatientID: options.patientId ?? 'P0001',
      PatientBirthDate: options.birthDate ?? '19700101',
      PatientSex: options.sex ?? 'M',
      AccessionNumber: options.accessionNumber ?? '',
      StudyInstanceUID: studyUid,
      SeriesInstanceUID: seriesUid,
      StudyID: '1',
      SeriesNumber: String(seriesNumber),
      InstanceNumber: String(i),
      ImagePositionPatient: [0, 0, i * spacing],
      ImageOrientationPatient: [1, 0, 0, 0, 1, 0],
      SliceThickness: 2.5,
      SliceLocation: i * spacing,
      SamplesPerPixel: 1,
      PhotometricInterpretation: 'MONOCHROME2',
      Rows: rows,
      Columns: columns,
      PixelSpacing: [0.7, 0.7],
      BitsAllocated: 16,
      BitsStored: 12,
      HighBit: 11,
      PixelRepresentation: 0,
      WindowCenter: 700,
      WindowWidth: 1400,
      RescaleIntercept: -1024,
      RescaleSlope: 1,
    };
    const meta = {
      FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
      MediaStorageSOPClassUID: sopClassUid,
      MediaStorageSOPInstanceUID: sopInstanceUid,
      TransferSyntaxUID: EXPLICIT_LITTLE_ENDIAN,
      ImplementationClassUID: '1.2.826.0.1.3680043.10.1082.99',
      ImplementationVersionName: 'RCLOUD_MOCK',
    };
    const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
    dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
    // Added denaturalized: 16-bit samples are OW (the dictionary's "ox" leaves it open).
    dict.dict['7FE00010'] = { vr: 'OW', Value: [slicePixels(rows, columns, i).buffer] };
    instances.push({ sopInstanceUid, sopClassUid, bytes: Buffer.from(dict.write()) });
  }
  return { studyUid, seriesUid, instances };
}
