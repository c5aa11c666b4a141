{{ config(materialized='incremental', incremental_strategy='merge', unique_key='order_id') }}

select
  order_id,
  customer_id,
  {{ to_cents('amount') }} as amount_cents,
  status,
  ordered_at,
  updated_at
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
