import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsIn, IsString } from 'class-validator';
import { InvitesService, InviteResult } from './invites.service';
import { AuthedRequest } from '../auth/authed-request';

class BulkInviteDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  emails!: string[];

  @IsIn(['member', 'admin', 'guest'])
  role!: string;
}

@Controller('v1/orgs/:orgId/invites')
export class InvitesController {
  constructor(private readonly invites: InvitesService) {}

  // 207: each address has its own outcome; the admin console shows the
  // rejected ones so the admin can correct them.
  @Post('bulk')
  @HttpCode(207)
  async bulk(@Param('orgId') orgId: string, @Body() dto: BulkInviteDto, @Req() req: AuthedRequest): Promise<InviteResult[]> {
    return this.invites.inviteMany(orgId, req.user.id, dto.emails, dto.role);
  }

  @Post()
  @HttpCode(201)
  async one(@Param('orgId') orgId: string, @Body() dto: { email: string; role: string }, @Req() req: AuthedRequest): Promise<InviteResult> {
    return this.invites.inviteOne(orgId, req.user.id, dto.email, dto.role);
  }
}
