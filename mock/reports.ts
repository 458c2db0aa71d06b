/**
 * Demo reports and templates: for the examined demo exams, a report in a spread of
 * workflow states (with the steps that led there, for the operation record), and the
 * public templates every demo hospital starts with plus a radiologist's private ones.
 * Seeded, so the same exams get the same reports everywhere. Refers to doctors by
 * mobile and hospitals by code; server/report/seed.ts resolves them.
 */
import { createRng } from './random';

/** Findings and diagnosis by modality: a normal reading and a positive one. */
const TEXTS: Record<string, { normal: [string, string]; positive: [string, string] }> = {
  CT: {
    normal: ['双肺纹理清晰，未见明显实质性病变。纵隔居中，心影大小形态正常，双侧胸膜未见增厚。', '胸部CT平扫未见明显异常。'],
    positive: ['右肺上叶尖段见一实性结节，直径约8mm，边缘清晰，未见毛刺及分叶。纵隔未见肿大淋巴结。', '右肺上叶实性小结节，建议3个月后复查。'],
  },
  MR: {
    normal: ['脑实质信号未见异常，灰白质分界清楚，脑室系统未见扩张，中线结构居中。', '颅脑MRI平扫未见明显异常。'],
    positive: ['左侧基底节区见斑片状长T1长T2信号，DWI呈高信号，ADC值减低。', '左侧基底节区急性脑梗死。'],
  },
  DX: {
    normal: ['胸廓对称，双肺纹理清晰，心影不大，双膈面光整，肋膈角锐利。', '心肺膈未见明显异常。'],
    positive: ['右下肺野见片状模糊影，边界不清，右肋膈角变钝。', '右下肺炎症，右侧少量胸腔积液。'],
  },
  US: {
    normal: ['肝脏大小形态正常，包膜光滑，实质回声均匀。胆囊、胰腺、脾脏未见明显异常。', '肝胆胰脾未见明显异常。'],
    positive: ['甲状腺右叶见一低回声结节，大小约9×7mm，边界清，形态规则，内见点状强回声。', '甲状腺右叶结节，TI-RADS 4a类。'],
  },
  MG: {
    normal: ['双侧乳腺呈散在纤维腺体型，未见明确肿块及可疑钙化，双侧腋下未见肿大淋巴结。', 'BI-RADS 1类。'],
    positive: ['左乳外上象限见一不规则肿块，边缘见毛刺，伴簇状细小钙化。', '左乳外上象限肿块，BI-RADS 4c类，建议活检。'],
  },
};

export interface DemoReport {
  state: -1 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
  /** Sent to the central hospital (to write when unwritten, else to review). */
  sent: boolean;
  see?: string;
  diagnosis?: string;
  positive?: boolean;
  /** A critical value recorded with the report. */
  crisis?: { recorder: string; description: string };
  printed: number;
  /** Mobile of the writer and of the reviewer (demo accounts). */
  writer?: string;
  reviewer?: string;
  /** What happened, in order: the log types of the operation record with the workflow action and reason. */
  steps: Array<{ type: string; action: string; to: number; reason?: string }>;
}

/** Writers by hospital code (demo mobiles): the radiologists there, or the senior with regional authorization. */
const WRITERS: Record<string, string[]> = { HOSP_A: ['13800000004', '13800000007'], HOSP_B: ['13800000005'], CENTRAL: ['13800000007', '13800000005'] };
const SENIOR = '13800000005';

/** Newest examined exams left unwritten: the demo images arrive for them, and only an open report accepts images. */
export const DEMO_UNWRITTEN_NEWEST = 30;

/**
 * The requesting department of the demo clinician (13800000008, mock/identity.ts): one
 * of its approved reports always carries a critical value, so /crisisValue and the
 * notice pop-up have something to show whatever the random spread gives.
 */
export const DEMO_CRISIS_DEPARTMENT = { hospital: 'HOSP_A', hisDeptName: '内科' };

const critical = (diagnosis: string) => ({ recorder: '林主任', description: `${diagnosis}已电话通知临床。` });

/**
 * The reports of examined exams given newest first (by hospital code and modality),
 * undefined where an exam has none. Sending upward happens only from the subordinate
 * hospitals; the newest DEMO_UNWRITTEN_NEWEST stay unwritten.
 */
export function demoReports(exams: Array<{ hospital: string; modality: string; hisDeptName?: string | null }>, seed = 20260808): Array<DemoReport | undefined> {
  const rng = createRng(seed);
  const plans = exams.map((exam, rank): DemoReport | undefined => {
    const roll = rng.next();
    const positive = rng.next() < 0.3;
    const printed = rng.next() < 0.5 ? rng.int(1, 2) : 0;
    const writer = rng.pick(WRITERS[exam.hospital] ?? [SENIOR]);
    if (rank < DEMO_UNWRITTEN_NEWEST || roll < 0.15) return undefined;
    const texts = TEXTS[exam.modality] ?? TEXTS.DX;
    const [see, diagnosis] = positive ? texts.positive : texts.normal;
    const subordinate = exam.hospital !== 'CENTRAL';
    const base = { see, diagnosis, positive, printed: 0, sent: false, writer };
    const submitted = [{ type: 'saveReport', action: 'save', to: 1 }, { type: 'submit', action: 'submit', to: 2 }];
    if (roll < 0.25) return { ...base, state: 1, steps: [{ type: 'saveReport', action: 'save', to: 1 }] };
    if (roll < 0.4) return { ...base, state: 2, steps: submitted };
    if (roll < 0.45) {
      return { ...base, state: 3, reviewer: SENIOR, steps: [...submitted, { type: 'reviewReject', action: 'reviewReject', to: 3, reason: '诊断意见与所见不符，请补充描述。' }] };
    }
    if (roll < 0.8) {
      const crisis = positive && rng.next() < 0.1 ? critical(diagnosis) : undefined;
      return { ...base, state: 4, printed, crisis, reviewer: SENIOR, steps: [...submitted, { type: 'reviewPass', action: 'reviewPass', to: 4 }] };
    }
    if (roll < 0.84) return { ...base, state: 5, reviewer: SENIOR, steps: [...submitted, { type: 'reviewPass', action: 'reviewToRecheck', to: 5 }] };
    if (roll < 0.86) {
      return {
        ...base,
        state: 6,
        reviewer: SENIOR,
        steps: [...submitted, { type: 'reviewPass', action: 'reviewToRecheck', to: 5 }, { type: 'doubleReviewReject', action: 'recheckReject', to: 6, reason: '请补充测量数据。' }],
      };
    }
    if (roll < 0.9) return { state: 7, sent: false, printed: 0, writer, steps: [{ type: 'return', action: 'return', to: 7, reason: '影像不全，请补扫。' }] };
    if (roll < 0.93 && subordinate) {
      return {
        state: 8,
        sent: false,
        printed: 0,
        writer,
        steps: [{ type: 'submitSuperiorWrite', action: 'submitSuperiorWrite', to: -1 }, { type: 'withdraw', action: 'withdraw', to: 8, reason: '本院医生已到岗，撤回自行书写。' }],
      };
    }
    if (subordinate) {
      // Sent upward: unwritten to be written there, or written here to be reviewed there.
      return rng.next() < 0.5
        ? { state: -1, sent: true, printed: 0, writer, steps: [{ type: 'submitSuperiorWrite', action: 'submitSuperiorWrite', to: -1 }] }
        : { ...base, state: 2, sent: true, steps: [{ type: 'saveReport', action: 'save', to: 1 }, { type: 'submitSuperiorAudit', action: 'submitSuperiorReview', to: 2 }] };
    }
    return { ...base, state: 2, steps: submitted };
  });
  // After the random spread (which it leaves as it is): the clinician's department gets its critical value.
  const ofDepartment = (i: number) => exams[i].hospital === DEMO_CRISIS_DEPARTMENT.hospital && exams[i].hisDeptName === DEMO_CRISIS_DEPARTMENT.hisDeptName;
  if (!plans.some((plan, i) => plan?.crisis && ofDepartment(i))) {
    const i = plans.findIndex((plan, j) => plan?.state === 4 && ofDepartment(j));
    if (i >= 0) {
      const [see, diagnosis] = (TEXTS[exams[i].modality] ?? TEXTS.DX).positive;
      plans[i] = { ...plans[i]!, see, diagnosis, positive: true, crisis: critical(diagnosis) };
    }
  }
  return plans;
}

export interface DemoTemplate {
  className1: string;
  className2: string;
  templateName: string;
  see: string;
  diagnosis: string;
}

/** Public templates of every demo hospital: modality → body part → template. */
export const DEMO_PUBLIC_TEMPLATES: DemoTemplate[] = [
  { className1: 'CT', className2: '胸部', templateName: '胸部平扫正常', see: TEXTS.CT.normal[0], diagnosis: TEXTS.CT.normal[1] },
  { className1: 'CT', className2: '胸部', templateName: '肺结节', see: TEXTS.CT.positive[0], diagnosis: TEXTS.CT.positive[1] },
  { className1: 'MR', className2: '颅脑', templateName: '颅脑平扫正常', see: TEXTS.MR.normal[0], diagnosis: TEXTS.MR.normal[1] },
  { className1: 'MR', className2: '颅脑', templateName: '急性脑梗死', see: TEXTS.MR.positive[0], diagnosis: TEXTS.MR.positive[1] },
  { className1: 'DX', className2: '胸部', templateName: '胸片正常', see: TEXTS.DX.normal[0], diagnosis: TEXTS.DX.normal[1] },
  { className1: 'US', className2: '腹部', templateName: '肝胆胰脾正常', see: TEXTS.US.normal[0], diagnosis: TEXTS.US.normal[1] },
  { className1: 'US', className2: '甲状腺', templateName: '甲状腺结节', see: TEXTS.US.positive[0], diagnosis: TEXTS.US.positive[1] },
  { className1: 'MG', className2: '乳腺', templateName: '乳腺正常', see: TEXTS.MG.normal[0], diagnosis: TEXTS.MG.normal[1] },
];

/** Private templates of the demo radiologist of hospital A (13800000004). */
export const DEMO_PRIVATE_TEMPLATES: Array<DemoTemplate & { owner: string }> = [
  { owner: '13800000004', className1: '常用', className2: 'CT', templateName: '我的胸部正常', see: TEXTS.CT.normal[0], diagnosis: TEXTS.CT.normal[1] },
  { owner: '13800000004', className1: '常用', className2: 'DX', templateName: '我的胸片正常', see: TEXTS.DX.normal[0], diagnosis: TEXTS.DX.normal[1] },
];
