/**
 * Pure registration rules (server/lib/examRules.ts): numbering formats within DICOM's
 * limits, the 2.25 Study UID, the age and its unit from a birth date, pinyin names.
 */
import { ageFromBirthDate, dayKey, formatExamCode, formatPatientId, newStudyUid, pinyinName } from '../../server/lib/examRules';

test('exam codes fit a DICOM Accession Number (SH, 16) and patient ids carry the day', () => {
  expect(formatExamCode('20250314', 42)).toBe('2025031400042');
  expect(formatExamCode('20250314', 123456).length).toBeLessThanOrEqual(16);
  expect(formatPatientId('20250314', 7)).toBe('P202503140007');
});

test('the working day is China time', () => {
  expect(dayKey(new Date('2025-03-14T16:30:00Z'))).toBe('20250315');
  expect(dayKey(new Date('2025-03-14T15:59:00Z'))).toBe('20250314');
});

test('a Study UID under 2.25 of at most 64 characters, never twice the same', () => {
  const uids = Array.from({ length: 50 }, newStudyUid);
  for (const uid of uids) {
    expect(uid).toMatch(/^2\.25\.[1-9]\d*$/);
    expect(uid.length).toBeLessThanOrEqual(64);
  }
  expect(new Set(uids).size).toBe(50);
});

test('age from a birth date: hours, days, months under 2 years, then years', () => {
  const at = new Date('2025-03-14T04:00:00Z'); // 12:00 China time
  expect(ageFromBirthDate('2025-03-14', at)).toEqual({ age: 12, ageUnit: 0 });
  expect(ageFromBirthDate('2025-03-04', at)).toEqual({ age: 10, ageUnit: 1 });
  expect(ageFromBirthDate('2024-03-15', at)).toEqual({ age: 11, ageUnit: 3 });
  expect(ageFromBirthDate('2023-03-14', at)).toEqual({ age: 2, ageUnit: 4 });
  expect(ageFromBirthDate('1980-06-01', at)).toEqual({ age: 44, ageUnit: 4 });
  expect(ageFromBirthDate('2025-03-15', at)).toBeUndefined();
});

test('pinyin names in DICOM Person Name form', () => {
  expect(pinyinName('张三丰')).toBe('Zhang^Sanfeng');
  expect(pinyinName('欧阳娜娜')).toBe('Ouyang^Nana');
  expect(pinyinName('李')).toBe('Li');
  expect(pinyinName('John Smith')).toBe('John Smith');
});
