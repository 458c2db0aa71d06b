/**
 * Calls of appointment scheduling (server/routes/schedule.ts) and the two exam calls
 * the scheduling screens use (the exam list to pick an unbooked exam, check-in).
 * Times come back as ISO instants plus the region's wall clock (`time`, `appointAt`),
 * which the screens show so a slot reads as the hospital's clock reads.
 */
import {
  getScheduleBookings,
  getScheduleCalendar,
  getScheduleSlots,
  postExamCheckinById,
  postExamList,
  postScheduleBook,
  postScheduleCancelByExamId,
  type GetScheduleCalendarData,
  type GetScheduleSlotsData,
} from './generated/ris';

/** What is booked: a device's slots, or a modality's (rules without a device). */
export type Target = { deviceId: number } | { modality: string };

export type Slot = GetScheduleSlotsData['slots'][number];
export type Booking = Slot['bookings'][number];
export type CalendarDay = GetScheduleCalendarData['days'][number];

/** An exam the booking dialog offers: the fields it shows of an exam list row (the generic list's rows are open, decided by its view). */
export interface ExamPick {
  id: number;
  examCode: string;
  hisPatientName: string;
  itemNames?: string;
  modality?: string;
}

export const daySlots = (hospitalId: number, date: string, target: Target, signal?: AbortSignal) => getScheduleSlots({ hospitalId, date, ...target }, { signal });

export const monthCalendar = (hospitalId: number, month: string, target: Target, signal?: AbortSignal) => getScheduleCalendar({ hospitalId, month, ...target }, { signal });

/** Appointments from `from` to `to` (inclusive); without dates the server takes the region's today. */
export const bookings = (hospitalId: number, from: string | undefined, to: string | undefined, pending: boolean, signal?: AbortSignal) =>
  getScheduleBookings({ hospitalId, from, to, pending: pending || undefined }, { signal });

/** Books an exam into the slot starting at `start`, or moves its booking there. */
export const book = (examId: number, start: string, target: Target) => postScheduleBook({ examId, start, ...('deviceId' in target ? { deviceId: target.deviceId } : {}) });

export const cancelBooking = (examId: number) => postScheduleCancelByExamId(examId);

export const checkIn = (examId: number) => postExamCheckinById(examId);

/**
 * Registered exams without a booking whose number or patient name matches `text`
 * (digits search the exam number, anything else the name), for the booking dialog.
 */
export async function unbookedExams(hospitalId: number, text: string): Promise<ExamPick[]> {
  const byCode = /^\d+$/.test(text.trim());
  const filters = { hospitalId, appointment: false, examState: 1, ...(text.trim() ? { [byCode ? 'examCode' : 'hisPatientName']: text.trim() } : {}) };
  const reply = await postExamList({ pageSize: 20, filters });
  return (reply.list ?? []) as unknown as ExamPick[];
}
