{{ config(materialized='ephemeral') }}

select order_id, customer_id, amount, status, ordered_at, updated_at
from {{ ref('raw_orders') }}
where status <> '{{ var("excluded_status") }}'
