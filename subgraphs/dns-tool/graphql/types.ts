import { Directive, Field, InputType, Int, ObjectType } from 'type-graphql';

/** A zone as the DNS tool manages it; the DNS API contributes its own fields to the same entity. */
@Directive('@key(fields: "name")')
@ObjectType({ description: 'A DNS zone.' })
export class Zone {
  @Field(() => String, { description: 'Zone name, lower case, without the trailing dot.' }) name!: string;
  @Field(() => String, {
    nullable: true,
    description: 'DNS tool: where its dynamic updates go (`host port`); null when the tool does not manage the zone.',
  })
  updateServer!: string | null;
  @Field(() => String, { nullable: true, description: 'DNS tool: where its transfers and queries go (`host port`).' })
  transferServer!: string | null;
  @Field(() => Boolean, { nullable: true, description: 'DNS tool: changes are refused.' }) readOnly!: boolean | null;
  @Field(() => String, { nullable: true, description: 'DNS tool: a note shown with the zone.' }) note!: string | null;
  @Field(() => String, { nullable: true, description: 'DNS tool: a maintenance note shown with the zone.' })
  maintenanceNote!: string | null;
  @Field(() => Boolean, { nullable: true, description: 'DNS tool: the zone is being transferred elsewhere.' })
  inTransfer!: boolean | null;
}

@ObjectType({ description: 'A record as `dig` prints it (a row of the DNS tool).' })
export class ToolRecord {
  @Field(() => String, { description: 'Absolute name with the trailing dot.' }) name!: string;
  @Field(() => Int) ttl!: number;
  @Field(() => String, { description: 'Always IN.' }) class!: string;
  @Field(() => String) type!: string;
  @Field(() => String, { description: 'RDATA in presentation form (TXT quoted; unknown types as `\\# len hex`).' })
  value!: string;
}

@ObjectType({ description: 'Whether the caller is logged in to the DNS tool, and as whom.' })
export class ToolSession {
  @Field(() => Boolean) loggedIn!: boolean;
  @Field(() => String, { nullable: true, description: 'The user (for a token: its USER part).' })
  user!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Roles from the roles map or the users file, joined with `,` (null for the default role).',
  })
  roles!: string | null;
}

@ObjectType({ description: 'A new DNS tool session.' })
export class ToolLoginResult {
  @Field(() => String, { description: 'Send it as `Authorization: Bearer <id>` (or the `dnsphpadmin` cookie).' })
  sessionId!: string;
  @Field(() => [String]) warnings!: string[];
}

@ObjectType({ description: 'The outcome of a DNS tool action.' })
export class ToolResult {
  @Field(() => Boolean) success!: boolean;
  @Field(() => [String], { description: 'Problems that did not stop the change (PTR steps that were skipped).' })
  warnings!: string[];
}

@InputType({ description: 'A record to create or delete with the DNS tool.' })
export class ToolRecordInput {
  @Field(() => String, { description: 'An FQDN, or relative to `zone` when that is given (`@` is the apex).' })
  record!: string;
  @Field(() => String, { nullable: true, description: 'The zone (default: the longest configured suffix).' })
  zone?: string;
  @Field(() => String, { description: 'A, AAAA, CNAME, DNAME, DS, NS, PTR, SRV, SSHFP, TXT, SPF or MX.' })
  type!: string;
  @Field(() => Int, { nullable: true, description: 'Seconds, 0 to 2147483647 (required to create).' })
  ttl?: number;
  @Field(() => String, { nullable: true, description: 'Presentation form; delete: without it the whole set goes.' })
  value?: string;
  @Field(() => Boolean, { nullable: true, description: 'Also change the PTR record of an A or AAAA record.' })
  ptr?: boolean;
  @Field(() => String, { nullable: true, description: 'For the audit log.' }) comment?: string;
}

@InputType({ description: 'A record to replace with the DNS tool: one UPDATE removes the old and adds the new.' })
export class ToolReplaceInput {
  @Field(() => String) record!: string;
  @Field(() => String, { nullable: true }) zone?: string;
  @Field(() => String) type!: string;
  @Field(() => Int, { description: 'The TTL of the new record.' }) ttl!: number;
  @Field(() => String, { nullable: true, description: 'The old value (without it the whole set of the type goes).' })
  value?: string;
  @Field(() => String) newValue!: string;
  @Field(() => String, { nullable: true, description: 'A new name in the same zone (default: record).' })
  newRecord?: string;
  @Field(() => String, { nullable: true, description: 'A new type (default: type).' }) newType?: string;
  @Field(() => Boolean, { nullable: true }) ptr?: boolean;
  @Field(() => String, { nullable: true }) comment?: string;
}
