import { Injectable } from '@nestjs/common';
import { addDays, format } from 'date-fns';
import { formatInTimeZone, toZonedTime } from 'date-fns-tz';
import { DepotRepository } from '../depots/depot.repository';

export interface Slot {
  date: string; // yyyy-MM-dd in the depot's time zone
  depot: string;
  window: string;
}

export interface SlotConfig {
  /** Orders placed before this depot-local time get next-day slots. */
  cutoff: string; // HH:mm
}

@Injectable()
export class SlotService {
  constructor(
    private readonly depots: DepotRepository,
    private readonly config: SlotConfig = { cutoff: '22:00' },
  ) {}

  /**
   * First bookable slots for a depot. Dates are depot-local: a depot in
   * Europe/Amsterdam starts "tomorrow" at 00:00 Amsterdam time, not UTC.
   */
  async nextDaySlots(depotCode: string, now: Date = new Date()): Promise<Slot[]> {
    const depot = await this.depots.byCode(depotCode);
    const localNow = toZonedTime(now, depot.timeZone);
    const beforeCutoff = format(localNow, 'HH:mm') < this.config.cutoff;
    const days = beforeCutoff ? 1 : 2;
    const date = formatInTimeZone(addDays(now, days), depot.timeZone, 'yyyy-MM-dd');
    return depot.windows.map((window) => ({ date, depot: depot.code, window }));
  }
}
