/**
 * The support desk's in-memory data: customers, tickets, per-team settings and tasks.
 * A fresh store per backend instance, seeded with the same records every time, so the demo and the
 * tests see predictable ids (`C-0001`…, `T-1001`…, `K-0001`…).
 */

/** A postal address of a customer. */
export interface Address {
  readonly street: string;
  readonly city: string;
  readonly zip_code: number;
}

/** A customer of the support desk. */
export interface Customer {
  readonly customer_id: string;
  readonly name: string;
  readonly email: string;
  readonly plan: 'free' | 'team' | 'enterprise';
  readonly addresses: readonly Address[];
}

/** The states a ticket moves through. */
export type TicketStatus = 'open' | 'pending' | 'closed';

/** A support ticket. */
export interface Ticket {
  readonly id: string;
  readonly subject: string;
  readonly body: string;
  readonly status: TicketStatus;
  readonly priority: number;
  readonly customer: { readonly name: string; readonly email: string; readonly addresses?: readonly Address[] };
  readonly tags: readonly string[];
  readonly created_at: string;
}

/** A task for a human agent. */
export interface Task {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly due?: string;
  readonly created_at: string;
}

/** The fields a caller supplies to open a ticket. */
export type NewTicket = Pick<Ticket, 'subject' | 'body' | 'customer'> & {
  readonly priority?: number;
  readonly tags?: readonly string[];
};

/** The fields a caller supplies to create a task. */
export type NewTask = Pick<Task, 'title' | 'description' | 'due'>;

/** Filters of `GET /tickets`. */
export interface TicketQuery {
  readonly query?: string;
  readonly status?: string;
  readonly priority?: number;
  readonly limit?: number;
  readonly createdAfter?: number;
}

/** Default page size of a ticket search. */
export const DEFAULT_TICKET_LIMIT = 20;

/** The in-memory records behind every route. */
export class SupportDeskStore {
  private readonly customers = new Map<string, Customer>();
  private readonly tickets: Ticket[] = [];
  private readonly settings = new Map<string, Record<string, unknown>>();
  private readonly tasks: Task[] = [];
  private readonly now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.now = now;
    for (const c of SEED_CUSTOMERS) this.customers.set(c.customer_id, c);
    for (const t of SEED_TICKETS) this.tickets.push(t);
    this.settings.set('billing', { auto_assign: true, sla_hours: 24 });
  }

  /** The customer with this id, or `undefined`. */
  customer(id: string): Customer | undefined {
    return this.customers.get(id);
  }

  /** The ticket with this id, or `undefined`. */
  ticket(id: string): Ticket | undefined {
    return this.tickets.find((t) => t.id === id);
  }

  /** Tickets matching every given filter, newest first. */
  searchTickets(q: TicketQuery): Ticket[] {
    const needle = q.query?.toLowerCase();
    return this.tickets
      .filter((t) => needle === undefined || `${t.subject}\n${t.body}`.toLowerCase().includes(needle))
      .filter((t) => q.status === undefined || t.status === q.status)
      .filter((t) => q.priority === undefined || t.priority === q.priority)
      .filter((t) => q.createdAfter === undefined || Date.parse(t.created_at) > q.createdAfter)
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, q.limit ?? DEFAULT_TICKET_LIMIT);
  }

  /** Opens a ticket (status `open`, priority 2 unless given). */
  createTicket(t: NewTicket): Ticket {
    const ticket: Ticket = {
      id: `T-${1001 + this.tickets.length}`,
      subject: t.subject,
      body: t.body,
      status: 'open',
      priority: t.priority ?? 2,
      customer: t.customer,
      tags: t.tags ?? [],
      created_at: this.now().toISOString(),
    };
    this.tickets.push(ticket);
    return ticket;
  }

  /** A team's settings (`{}` for a team never configured). */
  teamSettings(team: string): Record<string, unknown> {
    return this.settings.get(team) ?? {};
  }

  /** Merges settings into a team's settings and returns the result. */
  updateSettings(team: string, patch: Record<string, unknown>): Record<string, unknown> {
    const merged = { ...this.teamSettings(team), ...patch };
    this.settings.set(team, merged);
    return merged;
  }

  /** Creates a task. */
  createTask(t: NewTask): Task {
    const task: Task = {
      id: `K-${String(this.tasks.length + 1).padStart(4, '0')}`,
      title: t.title,
      description: t.description,
      ...(t.due !== undefined ? { due: t.due } : {}),
      created_at: this.now().toISOString(),
    };
    this.tasks.push(task);
    return task;
  }

  /** Every task, oldest first. */
  listTasks(): readonly Task[] {
    return this.tasks;
  }
}

const SEED_CUSTOMERS: readonly Customer[] = [
  {
    customer_id: 'C-0001',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    plan: 'enterprise',
    addresses: [{ street: '12 Analytical Row', city: 'London', zip_code: 10001 }],
  },
  {
    customer_id: 'C-0002',
    name: 'Grace Hopper',
    email: 'grace@example.com',
    plan: 'team',
    addresses: [{ street: '1 Compiler Way', city: 'Arlington', zip_code: 22201 }],
  },
  { customer_id: 'C-0003', name: 'Alan Turing', email: 'alan@example.com', plan: 'free', addresses: [] },
];

const SEED_TICKETS: readonly Ticket[] = [
  {
    id: 'T-1001',
    subject: 'Cannot log in',
    body: 'Password reset mail never arrives.',
    status: 'open',
    priority: 1,
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    tags: ['login'],
    created_at: '2025-01-10T09:00:00.000Z',
  },
  {
    id: 'T-1002',
    subject: 'Invoice shows wrong VAT',
    body: 'The March invoice charges 21% instead of 19%.',
    status: 'pending',
    priority: 2,
    customer: { name: 'Grace Hopper', email: 'grace@example.com' },
    tags: ['billing'],
    created_at: '2025-02-03T14:30:00.000Z',
  },
  {
    id: 'T-1003',
    subject: 'Feature request: dark mode',
    body: 'Please add a dark theme to the dashboard.',
    status: 'closed',
    priority: 3,
    customer: { name: 'Alan Turing', email: 'alan@example.com' },
    tags: ['ui', 'request'],
    created_at: '2025-03-21T08:15:00.000Z',
  },
];
