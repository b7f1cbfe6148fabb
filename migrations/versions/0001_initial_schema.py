"""conversation store, queue, summaries, runs, alerts

Revision ID: 0001
Revises:
Create Date: 2026-11-22 07:37:24.764140
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('agents',
    sa.Column('id', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('parent_id', sa.String(length=200), nullable=True),
    sa.Column('window_budget', sa.Integer(), nullable=True, comment='per-agent override of SUMMARIZER_WINDOW_TOKENS'),
    sa.Column('preamble_tokens', sa.Integer(), nullable=False),
    sa.Column('window_tokens', sa.Integer(), nullable=False),
    sa.Column('next_message_seq', sa.Integer(), nullable=False),
    sa.Column('last_exchange', sa.Integer(), nullable=False),
    sa.Column('window_start', sa.Integer(), nullable=False),
    sa.Column('current_complete', sa.Boolean(), nullable=False),
    sa.Column('current_tool_calls', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('last_created_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('unsummarized', sa.Integer(), nullable=False),
    sa.Column('unsummarized_since', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_agents'))
    )
    with op.batch_alter_table('agents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_agents_unsummarized_since'), ['unsummarized_since'], unique=False)

    op.create_table('alerts',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('kind', sa.String(length=50), nullable=False),
    sa.Column('agent_id', sa.String(length=200), nullable=True),
    sa.Column('severity', sa.String(length=20), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('details', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('acknowledged_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('delivery', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alerts'))
    )
    with op.batch_alter_table('alerts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_alerts_kind_agent_id_resolved_at'), ['kind', 'agent_id', 'resolved_at'], unique=False)

    op.create_table('summary_runs',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('agent_id', sa.String(length=200), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('duration_ms', sa.Integer(), nullable=False),
    sa.Column('worker', sa.String(length=200), nullable=True),
    sa.Column('from_version', sa.Integer(), nullable=True),
    sa.Column('to_version', sa.Integer(), nullable=True),
    sa.Column('exchange_count', sa.Integer(), nullable=False),
    sa.Column('first_exchange_id', sa.Integer(), nullable=True),
    sa.Column('last_exchange_id', sa.Integer(), nullable=True),
    sa.Column('path', sa.String(length=20), nullable=True),
    sa.Column('llm_input_tokens', sa.Integer(), nullable=False),
    sa.Column('llm_output_tokens', sa.Integer(), nullable=False),
    sa.Column('summary_tokens', sa.Integer(), nullable=True),
    sa.Column('truncated', sa.Boolean(), nullable=False),
    sa.Column('tokens_before_cap', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.String(length=20), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_summary_runs'))
    )
    with op.batch_alter_table('summary_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_summary_runs_agent_id_finished_at'), ['agent_id', 'finished_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_summary_runs_finished_at'), ['finished_at'], unique=False)

    op.create_table('exchanges',
    sa.Column('agent_id', sa.String(length=200), nullable=False),
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False, comment='1, 2, 3... within the agent'),
    sa.Column('first_seq', sa.Integer(), nullable=False),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('message_count', sa.Integer(), nullable=False),
    sa.Column('tokens', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('completed', sa.Boolean(), nullable=False),
    sa.Column('evicted_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('evict_reason', sa.String(length=20), nullable=True),
    sa.Column('summarized_in_version', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], name=op.f('fk_exchanges_agent_id_agents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('agent_id', 'id', name=op.f('pk_exchanges'))
    )
    op.create_table('messages',
    sa.Column('agent_id', sa.String(length=200), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('exchange_id', sa.Integer(), nullable=True, comment="NULL: the agent's preamble"),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('tool_call_id', sa.String(length=200), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('input', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True),
    sa.Column('is_error', sa.Boolean(), nullable=True),
    sa.Column('continues_exchange', sa.Boolean(), nullable=False),
    sa.Column('tokens', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('in_window', sa.Boolean(), nullable=False),
    sa.Column('evicted_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('host_id', sa.String(length=200), nullable=True),
    sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], name=op.f('fk_messages_agent_id_agents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('agent_id', 'seq', name=op.f('pk_messages')),
    sa.UniqueConstraint('agent_id', 'host_id', name=op.f('uq_messages_agent_id_host_id'))
    )
    with op.batch_alter_table('messages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_messages_agent_id_exchange_id'), ['agent_id', 'exchange_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_messages_agent_id_in_window_seq'), ['agent_id', 'in_window', 'seq'], unique=False)

    op.create_table('summaries',
    sa.Column('agent_id', sa.String(length=200), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('items', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('token_count', sa.Integer(), nullable=False),
    sa.Column('covered_through_exchange_id', sa.Integer(), nullable=True),
    sa.Column('last_aged_on', sa.Date(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], name=op.f('fk_summaries_agent_id_agents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('agent_id', name=op.f('pk_summaries'))
    )
    op.create_table('summary_update_queue',
    sa.Column('agent_id', sa.String(length=200), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False, comment='pending | running | idle | failed'),
    sa.Column('priority', sa.Integer(), nullable=False),
    sa.Column('queued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('available_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('lease_expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('claim_token', sa.String(length=64), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('consecutive_failures', sa.Integer(), nullable=False),
    sa.Column('dirty', sa.Boolean(), nullable=False, comment='new work arrived while running'),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], name=op.f('fk_summary_update_queue_agent_id_agents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('agent_id', name=op.f('pk_summary_update_queue'))
    )
    with op.batch_alter_table('summary_update_queue', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_summary_update_queue_state_available_at'), ['state', 'available_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('summary_update_queue', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_summary_update_queue_state_available_at'))

    op.drop_table('summary_update_queue')
    op.drop_table('summaries')
    with op.batch_alter_table('messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_messages_agent_id_in_window_seq'))
        batch_op.drop_index(batch_op.f('ix_messages_agent_id_exchange_id'))

    op.drop_table('messages')
    op.drop_table('exchanges')
    with op.batch_alter_table('summary_runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_summary_runs_finished_at'))
        batch_op.drop_index(batch_op.f('ix_summary_runs_agent_id_finished_at'))

    op.drop_table('summary_runs')
    with op.batch_alter_table('alerts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_alerts_kind_agent_id_resolved_at'))

    op.drop_table('alerts')
    with op.batch_alter_table('agents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_agents_unsummarized_since'))

    op.drop_table('agents')
