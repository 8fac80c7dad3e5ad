import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Counter } from 'prom-client';
import { Invite } from './invite.entity';
import { UsersClient } from '../users/users.client';
import { EventsPublisher } from '../events/events.publisher';
import { isValidEmail, maskEmail, normalizeEmail } from './email';

export interface InviteResult {
  email: string;
  status: 'invited' | 'already_member' | 'rejected';
  reason?: string;
}

const rejected = new Counter({
  name: 'invites_rejected_total',
  help: 'Invitations rejected before they were created',
  labelNames: ['reason'],
});

@Injectable()
export class InvitesService {
  private readonly log = new Logger(InvitesService.name);

  constructor(
    @InjectRepository(Invite) private readonly invites: Repository<Invite>,
    private readonly users: UsersClient,
    private readonly events: EventsPublisher,
  ) {}

  async inviteMany(orgId: string, inviterId: string, emails: string[], role: string): Promise<InviteResult[]> {
    const results: InviteResult[] = [];
    for (const raw of emails) {
      results.push(await this.inviteOne(orgId, inviterId, raw, role));
    }
    const failed = results.filter((r) => r.status === 'rejected').length;
    this.log.log({ msg: 'bulk invite processed', orgId, requested: emails.length, rejected: failed });
    return results;
  }

  async inviteOne(orgId: string, inviterId: string, raw: string, role: string): Promise<InviteResult> {
    const email = normalizeEmail(raw);
    if (!isValidEmail(email)) {
      rejected.inc({ reason: 'invalid_email' });
      this.log.warn({ msg: 'invite rejected: invalid email address', orgId, email: maskEmail(email) });
      return { email, status: 'rejected', reason: 'invalid_email' };
    }

    const user = await this.users.ensurePendingUser(orgId, email);
    if (user.memberOf.includes(orgId)) {
      return { email, status: 'already_member' };
    }

    const invite = await this.invites.save(this.invites.create({ orgId, inviterId, userId: user.id, email, role }));
    await this.events.publish('invite.created', { inviteId: invite.id, orgId, email, role });
    return { email, status: 'invited' };
  }
}
