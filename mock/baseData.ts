/**
 * Demo base data: the region's exam-part tree (body categories and organ parts),
 * each hospital's devices and exam items, and the region's QC rules. Devices and
 * items refer to hospitals by org code and to parts by part code, so the seed and
 * later generators (worklists, exams) agree without ids. Addresses are in
 * 192.168.<hospital>.x and AE titles are <ORG>_<MODALITY><n>, unique in the region.
 */
export const DEMO_ORGANS: Array<{ code: string; name: string; parts: Array<[code: string, name: string]> }> = [
  { code: 'HEAD', name: '头颅', parts: [['BRAIN', '颅脑'], ['SINUS', '鼻窦'], ['ORBIT', '眼眶']] },
  { code: 'NECK', name: '颈部', parts: [['THYROID', '甲状腺'], ['NECK_SOFT', '颈部软组织']] },
  { code: 'CHEST', name: '胸部', parts: [['LUNG', '肺'], ['HEART', '心脏'], ['BREAST', '乳腺']] },
  { code: 'ABDOMEN', name: '腹部', parts: [['LIVER', '肝胆'], ['KIDNEY', '肾脏'], ['PANCREAS', '胰腺']] },
  { code: 'PELVIS', name: '盆腔', parts: [['BLADDER', '膀胱'], ['PROSTATE', '前列腺']] },
  { code: 'SPINE', name: '脊柱', parts: [['C_SPINE', '颈椎'], ['L_SPINE', '腰椎']] },
  { code: 'LIMB', name: '四肢', parts: [['KNEE', '膝关节'], ['WRIST', '腕关节']] },
];

export interface DemoDevice {
  /** Calling AE title: unique in the region; the DICOM listener knows the device by it. */
  ae: string;
  name: string;
  model: string;
  modality: string;
  department: string;
  location: string;
}

/**
 * Per hospital: the central hospital has the big machines, the township hospitals a
 * CT, a DR and an ultrasound. A_CT1, A_DR1, C_CT1 and C_MR1 are the devices the DICOM
 * tests and the README's dcmtk examples send as (all from 127.0.0.1).
 */
export const DEMO_DEVICES: Record<string, DemoDevice[]> = {
  CENTRAL: [
    { ae: 'C_CT1', name: 'CT 一号机', model: 'uCT 760', modality: 'CT', department: 'FSK', location: '门诊楼一层 CT 室' },
    { ae: 'C_MR1', name: '磁共振', model: 'uMR 570', modality: 'MR', department: 'FSK', location: '医技楼一层 MR 室' },
    { ae: 'C_DR1', name: 'DR 摄影', model: 'DigiEye 760', modality: 'DX', department: 'FSK', location: '门诊楼一层 DR 室' },
    { ae: 'C_MG1', name: '乳腺机', model: 'Senographe Pristina', modality: 'MG', department: 'FSK', location: '门诊楼二层' },
  ],
  HOSP_A: [
    { ae: 'A_CT1', name: 'CT 机', model: 'uCT 510', modality: 'CT', department: 'FSK', location: '放射科' },
    { ae: 'A_DR1', name: 'DR 摄影', model: 'DigiEye 330', modality: 'DX', department: 'FSK', location: '放射科' },
    { ae: 'A_US1', name: '彩超', model: 'Resona 7', modality: 'US', department: 'FSK', location: '超声室' },
  ],
  HOSP_B: [
    { ae: 'B_DR1', name: 'DR 摄影', model: 'DigiEye 330', modality: 'DX', department: 'FSK', location: '放射科' },
    { ae: 'B_CT1', name: 'CT 机', model: 'uCT 510', modality: 'CT', department: 'FSK', location: '放射科' },
  ],
};

/** Exam items every hospital offers, by modality and organ part; price in CNY. */
export const DEMO_EXAM_ITEMS: Array<{ code: string; name: string; modality: string; organ: string; price: number }> = [
  { code: 'CT001', name: '颅脑 CT 平扫', modality: 'CT', organ: 'BRAIN', price: 180 },
  { code: 'CT002', name: '胸部 CT 平扫', modality: 'CT', organ: 'LUNG', price: 200 },
  { code: 'CT003', name: '上腹部 CT 平扫', modality: 'CT', organ: 'LIVER', price: 220 },
  { code: 'CT004', name: '腰椎 CT 平扫', modality: 'CT', organ: 'L_SPINE', price: 210 },
  { code: 'MR001', name: '颅脑 MR 平扫', modality: 'MR', organ: 'BRAIN', price: 480 },
  { code: 'MR002', name: '膝关节 MR 平扫', modality: 'MR', organ: 'KNEE', price: 520 },
  { code: 'DR001', name: '胸部正位片', modality: 'DX', organ: 'LUNG', price: 60 },
  { code: 'DR002', name: '颈椎正侧位片', modality: 'DX', organ: 'C_SPINE', price: 80 },
  { code: 'DR003', name: '腕关节正侧位片', modality: 'DX', organ: 'WRIST', price: 70 },
  { code: 'US001', name: '肝胆脾彩超', modality: 'US', organ: 'LIVER', price: 120 },
  { code: 'US002', name: '甲状腺彩超', modality: 'US', organ: 'THYROID', price: 100 },
  { code: 'MG001', name: '双侧乳腺钼靶', modality: 'MG', organ: 'BREAST', price: 160 },
];

export interface DemoQcRule {
  name: string;
  description: string;
  type: 'exam' | 'image' | 'report';
  timeLimitHours?: number;
  modality?: string;
  minImages?: number;
  diseases?: string[];
  /** Scoring items: name, points, deduction per fault. */
  items: Array<{ name: string; score: number; deduction?: number }>;
}

export const DEMO_QC_RULES: DemoQcRule[] = [
  { name: '申请单信息完整', description: '临床诊断、检查部位与患者基本信息齐全', type: 'exam', timeLimitHours: 24, items: [{ name: '临床诊断', score: 40, deduction: 10 }, { name: '检查部位', score: 30, deduction: 10 }, { name: '患者信息', score: 30, deduction: 5 }] },
  { name: '影像无伪影', description: '影像无运动伪影与金属伪影，窗宽窗位合适', type: 'image', minImages: 1, items: [{ name: '运动伪影', score: 50, deduction: 10 }, { name: '窗宽窗位', score: 50, deduction: 5 }] },
  { name: '体位标准', description: '摄影体位与检查项目一致，解剖结构完整', type: 'image', modality: 'DR', minImages: 2, items: [{ name: '体位', score: 60, deduction: 20 }, { name: '解剖结构', score: 40, deduction: 10 }] },
  { name: '报告所见与诊断相符', description: '诊断有所见支持，左右侧别一致', type: 'report', items: [{ name: '所见支持诊断', score: 70, deduction: 20 }, { name: '侧别一致', score: 30, deduction: 30 }] },
  { name: '危急值及时报告', description: '危急值在规定时间内记录并通知临床', type: 'report', diseases: ['气胸', '主动脉夹层', '脑出血'], items: [{ name: '记录及时', score: 50, deduction: 25 }, { name: '通知临床', score: 50, deduction: 25 }] },
];

/**
 * The demo devices' addresses: all on this machine (so dcmtk run here is the device),
 * each its own port, since IP and port together name one device.
 */
export function demoDeviceAddress(deviceIndex: number): { ip: string; port: number } {
  return { ip: '127.0.0.1', port: 11201 + deviceIndex };
}

/**
 * Reservation rules of the demo region (schedule_rule): per device by AE title, or per
 * modality of a hospital where `ae` is absent. Every day (weekdays 0), so the demo and
 * the tests find slots whatever the weekday.
 */
export const DEMO_SCHEDULE_RULES: Array<{ hospital: string; ae?: string; modality?: string; weekdays: number; start: string; end: string; minutes: number; capacity: number }> = [
  { hospital: 'HOSP_A', ae: 'A_CT1', weekdays: 0, start: '08:00', end: '12:00', minutes: 30, capacity: 2 },
  { hospital: 'HOSP_A', ae: 'A_CT1', weekdays: 0, start: '14:00', end: '17:00', minutes: 30, capacity: 2 },
  { hospital: 'HOSP_A', ae: 'A_DR1', weekdays: 0, start: '08:00', end: '17:00', minutes: 20, capacity: 3 },
  { hospital: 'HOSP_A', modality: 'US', weekdays: 8, start: '08:00', end: '11:30', minutes: 15, capacity: 1 },
  { hospital: 'CENTRAL', ae: 'C_CT1', weekdays: 0, start: '08:00', end: '18:00', minutes: 15, capacity: 2 },
  { hospital: 'CENTRAL', ae: 'C_MR1', weekdays: 0, start: '08:00', end: '20:00', minutes: 40, capacity: 1 },
  { hospital: 'HOSP_B', ae: 'B_CT1', weekdays: 0, start: '08:00', end: '12:00', minutes: 30, capacity: 2 },
];
