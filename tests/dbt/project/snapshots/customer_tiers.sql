{% snapshot customer_tiers %}
{{ config(unique_key='customer_id', strategy='check', check_cols='all', hard_deletes='invalidate') }}

-- No updated_at: each version is dated by the run that took it, and a
-- customer gone from the source has its version closed (invalidated).
select customer_id, name, tier from {{ ref('raw_customers') }}
{% endsnapshot %}
