{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='occurred_at',
          batch_size='day', begin='2025-05-01', unique_key='event_id') }}

-- Events by day: dbt reprocesses a day as one batch (dbt-postgres merges a
-- batch's rows by unique_key).
select event_id, kind, occurred_at
from {{ ref('raw_events') }}
