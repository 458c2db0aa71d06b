/**
 * Demo exams: a few hundred registrations over the 30 days before `now` across the
 * demo hospitals, their devices and catalogue items (mock/baseData.ts). Seeded, so the
 * same `now` gives the same patients, items and states on every machine. Identity
 * numbers carry a valid MOD 11-2 check character; phones follow the mainland rule.
 * Refers to hospitals, devices and items by code; the seed resolves the ids.
 */
import { DEMO_DEVICES, DEMO_EXAM_ITEMS } from './baseData';
import { createRng, type Rng } from './random';

export interface DemoExam {
  hospital: string;
  deviceAe: string;
  itemCodes: string[];
  name: string;
  sex: 1 | 2;
  birthDate: string;
  idNo: string;
  phone: string;
  patientSource: 1 | 2 | 3 | 4;
  outPatientNo?: string;
  inPatientNo?: string;
  bedNo?: string;
  hisNo: string;
  hisDeptName: string;
  hisDoctorName: string;
  clinicalDiagnosis: string;
  createdAt: Date;
  appointment: boolean;
  appointTime?: Date;
  /** Arrival (registration time for a walk-in, check-in for an appointment); absent: not arrived yet. */
  arrivedAt?: Date;
  examState: 1 | 2 | 3;
  /** For a terminated exam, the state it had. */
  stateBeforeTermination?: 1 | 2;
  examTime?: Date;
  hidden: boolean;
  payment: 0 | 1;
  /** 128 random bits for the pre-assigned Study Instance UID (2.25.<decimal>). */
  uidBits: bigint;
}

export const DEMO_EXAM_COUNT = 320;
/** Hospitals registering exams, weighted: the central hospital registers most. */
const HOSPITALS = ['CENTRAL', 'CENTRAL', 'CENTRAL', 'HOSP_A', 'HOSP_A', 'HOSP_B'];

const SURNAMES = ['王', '李', '张', '刘', '陈', '杨', '黄', '赵', '吴', '周', '徐', '孙', '马', '朱', '胡', '郭', '何', '林', '罗', '高', '欧阳', '诸葛'];
const GIVEN_MALE = ['伟', '强', '磊', '军', '洋', '勇', '杰', '涛', '明', '超', '建国', '志强', '海峰', '文博', '子轩', '浩然'];
const GIVEN_FEMALE = ['芳', '娜', '敏', '静', '丽', '艳', '娟', '霞', '秀英', '桂兰', '雨桐', '欣怡', '梓涵', '思琪', '晓燕', '玉梅'];
/** Area codes (first 6 digits) of the demo's identity numbers. */
const AREAS = ['110101', '310104', '330106', '440305', '510107', '420102', '320102', '370102'];
const PHONE_PREFIXES = ['138', '139', '135', '136', '150', '151', '186', '187', '177', '199'];
const DEPTS = ['内科', '外科', '急诊科', '骨科', '神经内科', '呼吸内科', '体检中心'];
const DOCTORS = ['张医生', '李医生', '王医生', '刘医生', '陈医生', '赵医生'];
const DIAGNOSES: Record<string, string[]> = {
  CT: ['头痛待查', '咳嗽咳痰一周，肺部感染？', '上腹痛待查', '腰痛伴下肢麻木'],
  MR: ['头晕待查，脑梗？', '膝关节疼痛，半月板损伤？'],
  DX: ['胸闷气短', '颈肩痛', '腕部外伤后疼痛', '体检'],
  US: ['体检', '肝功能异常', '甲状腺结节复查'],
  MG: ['乳腺结节筛查', '乳房胀痛'],
};

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** A mainland identity number for a birth date and sex, with its check character. */
export function demoIdNo(rng: Rng, birthDate: string, sex: 1 | 2): string {
  const seq = rng.int(0, 49) * 2 + (sex === 1 ? 1 : 0) + 100 * rng.int(0, 9);
  const body = `${rng.pick(AREAS)}${birthDate.replace(/-/g, '')}${String(seq).padStart(3, '0')}`;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(body[i]) * ID_WEIGHTS[i];
  return body + ID_CHECK[sum % 11];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export function demoExams(now: Date, count = DEMO_EXAM_COUNT, seed = 20260505): DemoExam[] {
  const rng = createRng(seed);
  const out: DemoExam[] = [];
  for (let i = 0; i < count; i++) {
    const hospital = rng.pick(HOSPITALS);
    const device = rng.pick(DEMO_DEVICES[hospital]);
    const items = DEMO_EXAM_ITEMS.filter((it) => it.modality === device.modality);
    const first = rng.pick(items);
    // Now and then a second item of the same modality on another part.
    const second = rng.next() < 0.15 ? items.find((it) => it !== first && it.organ !== first.organ) : undefined;
    const sex = device.modality === 'MG' ? 2 : rng.next() < 0.5 ? 1 : 2;
    const name = rng.pick(SURNAMES) + rng.pick(sex === 1 ? GIVEN_MALE : GIVEN_FEMALE);
    const birthYear = now.getUTCFullYear() - rng.int(1, 88);
    const birthDate = `${birthYear}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))}`;
    const patientSource = rng.pick([1, 1, 1, 2, 2, 3, 4] as const);
    // Working hours (08:00-17:59 China time) on one of the last 30 days, oldest first by index.
    const dayOffset = Math.floor(((count - 1 - i) / count) * 30);
    const dayStart = Math.floor((now.getTime() + 8 * 3600_000) / DAY) * DAY - 8 * 3600_000 - dayOffset * DAY;
    let createdAt = new Date(dayStart + (8 * 60 + rng.int(0, 599)) * MINUTE);
    if (createdAt > now) createdAt = new Date(now.getTime() - rng.int(1, 120) * MINUTE);
    const appointment = rng.next() < 0.2;
    const appointTime = appointment ? new Date(createdAt.getTime() + rng.int(1, 3) * DAY) : undefined;
    const due = appointTime ?? createdAt;
    // An appointment still in the future has not arrived; an older one has, mostly.
    const arrived = !appointment || (appointTime! <= now && rng.next() < 0.85);
    const arrivedAt = arrived ? (appointment ? appointTime : createdAt) : undefined;
    const roll = rng.next();
    const examined = arrived && due.getTime() < now.getTime() - 2 * 3600_000 && roll < 0.7;
    const terminated = !examined && roll > 0.9;
    const diagnoses = DIAGNOSES[device.modality] ?? ['体检'];
    out.push({
      hospital,
      deviceAe: device.ae,
      itemCodes: second ? [first.code, second.code] : [first.code],
      name,
      sex,
      birthDate,
      idNo: demoIdNo(rng, birthDate, sex),
      phone: `${rng.pick(PHONE_PREFIXES)}${pad(rng.int(0, 99999999), 8)}`,
      patientSource,
      outPatientNo: patientSource === 1 || patientSource === 3 ? `MZ${pad(rng.int(0, 9999999), 7)}` : undefined,
      inPatientNo: patientSource === 2 ? `ZY${pad(rng.int(0, 999999), 6)}` : undefined,
      bedNo: patientSource === 2 ? `${rng.int(1, 40)}床` : undefined,
      hisNo: `HIS${pad(rng.int(0, 99999999), 8)}`,
      hisDeptName: patientSource === 3 ? '急诊科' : patientSource === 4 ? '体检中心' : rng.pick(DEPTS),
      hisDoctorName: rng.pick(DOCTORS),
      clinicalDiagnosis: rng.pick(diagnoses),
      createdAt,
      appointment,
      appointTime,
      arrivedAt,
      examState: terminated ? 3 : examined ? 2 : 1,
      stateBeforeTermination: terminated ? 1 : undefined,
      examTime: examined ? new Date(due.getTime() + rng.int(10, 90) * MINUTE) : undefined,
      hidden: rng.next() < 0.03,
      payment: rng.next() < 0.8 ? 1 : 0,
      uidBits: (BigInt(Math.floor(rng.next() * 2 ** 32)) << 96n) | (BigInt(Math.floor(rng.next() * 2 ** 32)) << 64n) | (BigInt(Math.floor(rng.next() * 2 ** 32)) << 32n) | BigInt(Math.floor(rng.next() * 2 ** 32)),
    });
  }
  return out.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}
