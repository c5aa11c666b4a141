{% macro to_cents(column) -%}
  cast(round({{ column }} * 100) as bigint)
{%- endmacro %}
