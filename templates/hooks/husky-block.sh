# >>> gateline (managed by create-gateline)
{{command}}
# <<< gateline
