/**
 * DICOM attribute names for DICOMweb query parameters: a keyword (PatientName) or a
 * tag in any of the usual spellings (00100010, 0010,0010, (0010,0010)) to the tag as
 * DICOM JSON writes it (8 upper-case hex digits), and a tag's VR. Reads dcmjs's
 * dictionary; touches nothing else.
 */
import * as dcmjs from 'dcmjs';

const { DicomMetaDictionary } = dcmjs.data;

interface DictEntry {
  tag: string;
  vr: string;
  name: string;
}

/** "(0010,0010)" → "00100010". */
function compact(tag: string): string {
  return tag.replace(/[(),]/g, '').toUpperCase();
}

/** The tag of a keyword or tag spelling, or undefined when it names no attribute. */
export function resolveTag(name: string): string | undefined {
  const trimmed = name.trim();
  const hex = compact(trimmed);
  if (/^[0-9A-F]{8}$/.test(hex)) return hex;
  const entry = (DicomMetaDictionary.nameMap as Record<string, DictEntry | undefined>)[trimmed];
  return entry ? compact(entry.tag) : undefined;
}

/** The VR of a tag (the first when the dictionary allows several), or UN. */
export function vrOf(tag: string): string {
  const key = `(${tag.slice(0, 4)},${tag.slice(4)})`;
  const entry = (DicomMetaDictionary.dictionary as Record<string, DictEntry | undefined>)[key];
  return entry?.vr?.split('|')[0]?.slice(0, 2) || 'UN';
}

/** Tags used by name in this module's callers. */
export const TAG = {
  SpecificCharacterSet: '00080005',
  SOPClassUID: '00080016',
  SOPInstanceUID: '00080018',
  StudyDate: '00080020',
  SeriesDate: '00080021',
  StudyTime: '00080030',
  SeriesTime: '00080031',
  AccessionNumber: '00080050',
  InstanceAvailability: '00080056',
  Modality: '00080060',
  ModalitiesInStudy: '00080061',
  ReferringPhysicianName: '00080090',
  StudyDescription: '00081030',
  SeriesDescription: '0008103E',
  StationName: '00081010',
  RetrieveURL: '00081190',
  ReferencedSOPClassUID: '00081150',
  ReferencedSOPInstanceUID: '00081155',
  FailureReason: '00081197',
  FailedSOPSequence: '00081198',
  ReferencedSOPSequence: '00081199',
  AvailableTransferSyntaxUID: '00083002',
  PatientName: '00100010',
  PatientID: '00100020',
  PatientBirthDate: '00100030',
  PatientSex: '00100040',
  BodyPartExamined: '00180015',
  StudyInstanceUID: '0020000D',
  SeriesInstanceUID: '0020000E',
  StudyID: '00200010',
  SeriesNumber: '00200011',
  InstanceNumber: '00200013',
  NumberOfStudyRelatedSeries: '00201206',
  NumberOfStudyRelatedInstances: '00201208',
  NumberOfSeriesRelatedInstances: '00201209',
  SamplesPerPixel: '00280002',
  PhotometricInterpretation: '00280004',
  PlanarConfiguration: '00280006',
  NumberOfFrames: '00280008',
  Rows: '00280010',
  Columns: '00280011',
  BitsAllocated: '00280100',
  BitsStored: '00280101',
  HighBit: '00280102',
  PixelRepresentation: '00280103',
  WindowCenter: '00281050',
  WindowWidth: '00281051',
  RescaleIntercept: '00281052',
  RescaleSlope: '00281053',
  PixelData: '7FE00010',
} as const;
