{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='order_id') }}

-- An order's lines: each run replaces every line of the orders it brings.
select order_id, line, sku, qty, updated_at
from {{ ref('raw_order_lines') }}
{% if is_incremental() %}
where order_id in (
  select order_id from {{ ref('raw_order_lines') }}
  where updated_at > (select max(updated_at) from {{ this }})
)
{% endif %}
