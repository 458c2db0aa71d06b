/**
 * Calls of appointment scheduling (server/routes/schedule.ts) and the two exam calls
 * the scheduling screens use (the exam list to pick an unbooked exam, check-in).
 * Times come back as ISO instants plus the region's wall clock (`time`, `appointAt`),
 * which the screens show so a slot reads as the hospital's clock reads.
 */
import { request } from './request';

const RIS = '/api/ris/v1';

/** What is booked: a device's slots, or a modality's (rules without a device). */
export type Target = { deviceId: number } | { modality: string };

export interface Booking {
  examId: number;
  examCode: string;
  hisPatientName: string;
  patientId: string;
  modality?: string;
  deviceId?: number;
  deviceName?: string;
  itemNames: string;
  appointTime: string;
  appointAt: string;
  arrivedAt?: string;
  examState: number;
  hospitalId: number;
}

export interface Slot {
  start: string;
  end: string;
  time: string;
  endTime: string;
  capacity: number;
  booked: number;
  past: boolean;
  bookings: Booking[];
}

export interface CalendarDay {
  date: string;
  slots: number;
  capacity: number;
  booked: number;
}

export interface ExamPick {
  id: number;
  examCode: string;
  hisPatientName: string;
  itemNames?: string;
  modality?: string;
}

export const daySlots = (hospitalId: number, date: string, target: Target, signal?: AbortSignal) =>
  request<{ date: string; slots: Slot[] }>(`${RIS}/schedule/slots`, { query: { hospitalId, date, ...target }, signal });

export const monthCalendar = (hospitalId: number, month: string, target: Target, signal?: AbortSignal) =>
  request<{ month: string; days: CalendarDay[] }>(`${RIS}/schedule/calendar`, { query: { hospitalId, month, ...target }, signal });

/** Appointments from `from` to `to` (inclusive); without dates the server takes the region's today. */
export const bookings = (hospitalId: number, from: string | undefined, to: string | undefined, pending: boolean, signal?: AbortSignal) =>
  request<{ list: Booking[]; total: number }>(`${RIS}/schedule/bookings`, { query: { hospitalId, from, to, pending: pending || undefined }, signal });

/** Books an exam into the slot starting at `start`, or moves its booking there. */
export const book = (examId: number, start: string, target: Target) =>
  request<Booking>(`${RIS}/schedule/book`, { method: 'POST', body: { examId, start, ...('deviceId' in target ? { deviceId: target.deviceId } : {}) } });

export const cancelBooking = (examId: number) => request<Booking>(`${RIS}/schedule/cancel/${examId}`, { method: 'POST' });

export const checkIn = (examId: number) => request(`${RIS}/exam/checkin/${examId}`, { method: 'POST' });

/**
 * Registered exams without a booking whose number or patient name matches `text`
 * (digits search the exam number, anything else the name), for the booking dialog.
 */
export async function unbookedExams(hospitalId: number, text: string): Promise<ExamPick[]> {
  const byCode = /^\d+$/.test(text.trim());
  const filters = { hospitalId, appointment: false, examState: 1, ...(text.trim() ? { [byCode ? 'examCode' : 'hisPatientName']: text.trim() } : {}) };
  const reply = await request<{ list: ExamPick[] }>(`${RIS}/exam/list`, { method: 'POST', body: { pageSize: 20, filters } });
  return reply.list;
}
