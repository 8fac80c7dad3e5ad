import { Test } from '@nestjs/testing';
import { DepotRepository } from '../../src/depots/depot.repository';
import { SlotService } from '../../src/slots/slot.service';
import { startPostgres, stopPostgres, seedDepots } from './support/postgres';

describe('next-day cutoff', () => {
  let service: SlotService;

  beforeAll(async () => {
    const db = await startPostgres();
    await seedDepots(db, [
      { code: 'AMS-04', timeZone: 'Europe/Amsterdam', windows: ['08:00-10:00', '10:00-12:00', '18:00-20:00'] },
      { code: 'LIS-01', timeZone: 'Europe/Lisbon', windows: ['09:00-13:00'] },
    ]);
    const moduleRef = await Test.createTestingModule({
      providers: [DepotRepository, { provide: SlotService, useFactory: (d: DepotRepository) => new SlotService(d, { cutoff: '23:59' }), inject: [DepotRepository] }],
    }).compile();
    service = moduleRef.get(SlotService);
  });

  afterAll(stopPostgres);

  it('offers next-day slots before the cutoff', async () => {
    const now = new Date();
    const today = now.toISOString().slice(0, 10);

    const slots = await service.nextDaySlots('AMS-04', now);

    expect(slots[0]).toEqual({ date: addDaysUtc(today, 1), depot: 'AMS-04', window: '08:00-10:00' });
  });

  it('offers slots two days out after the cutoff', async () => {
    const late = new SlotService(moduleDepots(), { cutoff: '00:00' });
    const slots = await late.nextDaySlots('LIS-01', new Date('2026-03-02T12:00:00Z'));
    expect(slots[0].date).toBe('2026-03-04');
  });
});

function addDaysUtc(isoDate: string, days: number): string {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function moduleDepots(): DepotRepository {
  return new DepotRepository();
}
