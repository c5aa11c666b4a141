{% snapshot customers_history %}
{{ config(unique_key='customer_id', strategy='timestamp', updated_at='updated_at') }}

-- Each customer's versions, dated by the row's updated_at.
select customer_id, name, tier, updated_at from {{ ref('raw_customers') }}
{% endsnapshot %}
