/**
 * Demo consultation experts of the central hospital (issue #20): two linked to demo
 * accounts (郑教授 the expert, 林主任 the senior reviewer), so that signing in as them
 * shows the consultations they are invited to; one without an account (invited by
 * SMS only); one closed (not offered for new consultations).
 */
export interface DemoExpert {
  name: string;
  mobile: string;
  hospitalCode: string;
  /** The demo account (mock/identity.ts) the expert signs in with, by mobile. */
  userMobile?: string;
  departmentName: string;
  title: -1 | 1 | 2 | 3 | 4;
  labels: string[];
  specialty: string;
  expertise: string;
  introduction: string;
  state: 0 | 1;
}

export const DEMO_EXPERTS: DemoExpert[] = [
  {
    name: '郑教授',
    mobile: '13800000006',
    hospitalCode: 'CENTRAL',
    userMobile: '13800000006',
    departmentName: '内科',
    title: 4,
    labels: ['神经影像', '疑难病例'],
    specialty: '神经系统影像诊断',
    expertise: '脑血管病、颅内肿瘤',
    introduction: '从事影像诊断三十年，擅长神经系统疑难病例。',
    state: 1,
  },
  {
    name: '林主任',
    mobile: '13800000005',
    hospitalCode: 'CENTRAL',
    userMobile: '13800000005',
    departmentName: '放射科',
    title: 4,
    labels: ['胸部影像'],
    specialty: '胸部影像诊断',
    expertise: '肺结节、肺部感染',
    introduction: '放射科主任，主持区域影像质控。',
    state: 1,
  },
  {
    name: '钱医生',
    mobile: '13900000106',
    hospitalCode: 'CENTRAL',
    departmentName: '骨科',
    title: 3,
    labels: ['骨关节'],
    specialty: '骨关节影像',
    expertise: '运动损伤',
    introduction: '骨关节影像副主任医师。',
    state: 1,
  },
  {
    name: '孙医生',
    mobile: '13900000107',
    hospitalCode: 'CENTRAL',
    departmentName: '放射科',
    title: 2,
    labels: [],
    specialty: '腹部影像',
    expertise: '肝胆胰',
    introduction: '主治医师（暂停接受会诊邀请）。',
    state: 0,
  },
];

/**
 * Demo consultations of hospital A's radiologist (13800000004) with the central
 * hospital's experts, over the last weeks, one in each state a manager counts on
 * /teleStatistics: ended with an approved report, running, about to start, waiting for
 * review, rejected and revoked. `days`: the start before (negative: after) the seed's now.
 */
export interface DemoConsultation {
  topic: string;
  patientName: string;
  sex: 1 | 2;
  birthDate: string;
  applicantMobile: string;
  hospitalCode: string;
  consultHospitalCode: string;
  /** Invited experts, by mobile (DEMO_EXPERTS). */
  experts: string[];
  status: 1 | 2 | 3 | 4 | 5 | 6 | 7;
  reportStatus: -1 | 1 | 2 | 3 | 4;
  days: number;
}

const fromA = { applicantMobile: '13800000004', hospitalCode: 'HOSP_A', consultHospitalCode: 'CENTRAL' } as const;

export const DEMO_CONSULTATIONS: DemoConsultation[] = [
  { ...fromA, topic: '颅内占位性质会诊', patientName: '王建国', sex: 1, birthDate: '1958-03-12', experts: ['13800000006'], status: 7, reportStatus: 4, days: 20 },
  { ...fromA, topic: '肺结节随访方案', patientName: '李秀英', sex: 2, birthDate: '1966-09-30', experts: ['13800000005', '13800000006'], status: 7, reportStatus: 4, days: 9 },
  { ...fromA, topic: '膝关节损伤评估', patientName: '赵强', sex: 1, birthDate: '1990-06-18', experts: ['13900000106'], status: 6, reportStatus: 1, days: 0 },
  { ...fromA, topic: '脑梗死范围评估', patientName: '周桂兰', sex: 2, birthDate: '1949-12-02', experts: ['13800000006'], status: 5, reportStatus: -1, days: -1 },
  { ...fromA, topic: '肝脏低密度灶', patientName: '吴海', sex: 1, birthDate: '1972-01-25', experts: ['13800000005'], status: 2, reportStatus: -1, days: -2 },
  { ...fromA, topic: '胸痛待查', patientName: '郑丽', sex: 2, birthDate: '1981-04-09', experts: ['13800000005'], status: 3, reportStatus: -1, days: 4 },
  { ...fromA, topic: '腰椎间盘突出', patientName: '冯军', sex: 1, birthDate: '1977-08-14', experts: ['13900000106'], status: 4, reportStatus: -1, days: 12 },
];
