{{ config(materialized='table') }}

-- A table model: every run rebuilds it whole.
select c.customer_id, c.name, c.tier, count(o.order_id) as orders
from {{ ref('raw_customers') }} as c
left join {{ ref('raw_orders') }} as o on o.customer_id = c.customer_id
group by c.customer_id, c.name, c.tier
