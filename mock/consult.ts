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
