/**
 * Debian's Orthanc as the tests and benchmarks start it: on loopback, with a config of
 * their own in a temp folder (never the system service), so two runs never share it.
 */
import path from 'node:path';

/** BENCH_ORTHANC points elsewhere (for the benchmarks, a missing path shows the platform-only output). */
export const ORTHANC = process.env.BENCH_ORTHANC || '/usr/sbin/Orthanc';

/** The settings every such Orthanc has: its folders under `dir`, HTTP on loopback without authentication, its DICOM server on `dicomPort`. */
export function orthancConfig(dir: string, opts: { name: string; aet: string; httpPort: number; dicomPort: number }): Record<string, unknown> {
  return {
    Name: opts.name,
    StorageDirectory: path.join(dir, 'storage'),
    IndexDirectory: path.join(dir, 'index'),
    StorageCompression: false,
    HttpServerEnabled: true,
    HttpPort: opts.httpPort,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    DicomServerEnabled: true,
    DicomAet: opts.aet,
    DicomPort: opts.dicomPort,
    DicomCheckCalledAet: false,
    SaveJobs: false,
  };
}
