/**
 * Data masking (spec section 5, server/lib/masking.ts): the spec's cases for names,
 * phones, identity, social security and medical card numbers, "-" for empty values,
 * and a row keeping its shape.
 */
import { maskIdNo, maskMedicalCardNo, maskName, maskPhone, maskRow, maskSocialNo } from '../../server/lib/masking';

test('a Chinese name keeps its first character; another keeps 5 when longer than 5', () => {
  expect(maskName('张三丰')).toBe('张**');
  expect(maskName('欧阳娜娜')).toBe('欧***');
  expect(maskName('王')).toBe('王');
  expect(maskName('Alexander')).toBe('Alexa****');
  expect(maskName('Maria')).toBe('M****');
});

test('a phone of 11 digits shows the first 3 and the last 4', () => {
  expect(maskPhone('13812345678')).toBe('138****5678');
  expect(maskPhone('+8613812345678')).toBe('+86*******5678');
  expect(maskPhone('1234567')).toBe('*******');
});

test('an identity number keeps the first 6 and the last 3', () => {
  expect(maskIdNo('11010519491231002X')).toBe('110105*********02X');
});

test('a social security number keeps the first 6, and the last 1 from 15 characters on', () => {
  expect(maskSocialNo('110105194912310')).toBe('110105********0');
  expect(maskSocialNo('11010519491231002X')).toBe('110105***********X');
  expect(maskSocialNo('12345678901234')).toBe('123456********');
});

test('a medical card number hides its last 5 as 4 stars', () => {
  expect(maskMedicalCardNo('YB1234567890')).toBe('YB12345****');
  expect(maskMedicalCardNo('12345')).toBe('****');
});

test('an empty value shows "-"', () => {
  for (const mask of [maskName, maskPhone, maskIdNo, maskSocialNo, maskMedicalCardNo]) {
    expect(mask('')).toBe('-');
    expect(mask(null)).toBe('-');
    expect(mask(undefined)).toBe('-');
  }
});

test('a row: the identifiers masked, other fields and absent ones untouched', () => {
  const row = { id: 7, hisPatientName: '李四', phone: '13912345678', examCode: '2025031400001' };
  expect(maskRow(row)).toEqual({ id: 7, hisPatientName: '李*', phone: '139****5678', examCode: '2025031400001' });
  expect(row.phone).toBe('13912345678');
});
